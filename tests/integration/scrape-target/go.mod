module profd-scrape-target

go 1.19
