"""From delivered files to typed frames and rejections: TRF, the draughts CSV, manifests, the
member registry, and matching tournament players to registered ones."""
