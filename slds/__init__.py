"""SLDS: Swiss Landmark Decisions Summarization (headnotes in German, French and Italian)."""
