PRAGMA journal_mode=DELETE
