module profd-bench-gen

go 1.19
