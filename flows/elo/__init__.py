"""The FSI Elo flows (Elo Italia, Elo Rapid): TRF deliveries, the quarterly list, replays."""
