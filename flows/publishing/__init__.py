"""What publishing a list shares, whatever the rating system: the list's context, refusals,
revisions, differences, staleness, replays and imports. It knows no system: each family's
flows (``flows.elo``, ``flows.rubele``) pass in what is theirs."""
