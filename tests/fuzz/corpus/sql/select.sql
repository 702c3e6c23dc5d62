SELECT name FROM scopes
