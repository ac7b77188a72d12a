"""Independent, deliberately slow reference implementations used to cross-check the engines."""
