module profd-gen-large

go 1.19
