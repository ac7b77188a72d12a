"""What every rating system's list shares: rulebook eras and the calendar, periods, flags,
rankings, diffs between revisions, notes, and the shape of a published list."""
