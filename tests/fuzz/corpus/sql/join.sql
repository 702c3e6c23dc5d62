SELECT s.name, count(*) FROM profile p JOIN scope s ON s.id = p.scope_id GROUP BY 1 LIMIT 5
