ATTACH DATABASE '/tmp/x.db' AS x
