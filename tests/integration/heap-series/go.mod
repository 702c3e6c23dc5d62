module profd-heap-series

go 1.19
