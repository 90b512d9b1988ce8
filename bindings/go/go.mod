module cudnnfe.dev/cudnnfe

go 1.19
