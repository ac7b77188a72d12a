"""The FID Elo-Rubele flows (draughts): the FID registry, draughts deliveries, the lists."""
