// Package cheap reads the C heap in use, for the binding's leak test only (cgo is not allowed in _test.go files;
// the binding itself does not import this package, so it needs nothing glibc-specific).
package cheap

// #include <malloc.h>
// static size_t lrgo_heap_in_use(void) { return mallinfo2().uordblks; }
import "C"

// InUse is glibc's count of the bytes malloc has handed out and not yet had back (mallinfo2's uordblks).
func InUse() uint64 { return uint64(C.lrgo_heap_in_use()) }
