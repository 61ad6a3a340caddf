module linkrouter

// No dependencies: the package builds offline with only Debian's golang-go (1.19) and liblinkrouter.so.
go 1.19
