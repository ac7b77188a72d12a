"""The dashboard's pages: scripts that Streamlit runs (``st.navigation`` in ``app.py``), each
calling its ``main()`` at the bottom; a package only so that they are installed with it."""
