module linkrouter-example

go 1.19

// The binding from this source tree (bindings/go): no network, no go.sum.
require linkrouter v0.0.0

replace linkrouter => ../../bindings/go
