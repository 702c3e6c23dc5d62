DELETE FROM profile
