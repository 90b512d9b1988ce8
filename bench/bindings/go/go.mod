module cudnnfe.dev/bench

go 1.19

require cudnnfe.dev/cudnnfe v0.0.0

replace cudnnfe.dev/cudnnfe => ../../../bindings/go
