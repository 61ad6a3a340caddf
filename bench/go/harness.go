// harness.go - the Go side of the benchmark harness: the same datasets, shuffled order, calibration,
// runs and JSON line as bench/c/bench_common.h (read that file first; this one follows it step by step).
//
// Environment (set by bench/run.sh, all optional): LINKROUTER_DATA, BENCH_DATASETS, BENCH_RUNS (11; 7 for
// >= 100000 routes), BENCH_RUN_MS (150; 100 for >= 100000 routes), BENCH_MAX_PASS_MS (1000), BENCH_CLOCK (cpu:
// this thread's CPU time, the default; wall: the monotonic clock).
//
// The timing goroutine is locked to its OS thread (runtime.LockOSThread) so CLOCK_THREAD_CPUTIME_ID, read with
// a raw clock_gettime system call, is the CPU time of the thread doing the lookups. Go's collector can also
// run on other threads; the process's CPU time (CLOCK_PROCESS_CPUTIME_ID) is read around every run too and
// reported as process_cpu_ns_median, so the row shows what the lookups cost the whole process.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const (
	clockProcessCPUTime = 2 // CLOCK_PROCESS_CPUTIME_ID
	clockThreadCPUTime  = 3 // CLOCK_THREAD_CPUTIME_ID
)

// Row is one line of a dataset TSV (id, pattern, url, params).
type Row struct {
	ID          int
	Pattern     string   // gh://get/repos/:owner/:repo
	PatternPath string   // get/repos/:owner/:repo (scheme dropped, host first)
	URL         string   // gh://get/repos/octocat/Hello-World
	URLPath     string   // /get/repos/octocat/Hello-World
	ParamNames  []string // expected names, pattern order
	ParamValues []string // expected values
}

// Dataset is one TSV file.
type Dataset struct {
	Name string
	Rows []Row
}

// Lookup is what a router's verification lookup returns: the row index it reached and its parameters.
type Lookup struct {
	Row    int
	Names  []string
	Values []string
}

// PassFunc looks order[0..n) up once each, reads every parameter, and returns a checksum.
type PassFunc func(order []int, n int) uint64

var sink uint64

func dataDir() string {
	if d := os.Getenv("LINKROUTER_DATA"); d != "" {
		return d
	}
	return "../shared/data"
}

func envInt(name string, dflt int) int {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return dflt
}

func datasetNames() []string {
	s := os.Getenv("BENCH_DATASETS")
	if s == "" {
		s = "github scale-10 scale-1000 scale-10000 scale-100000"
	}
	return strings.Fields(strings.ReplaceAll(s, ",", " "))
}

func afterScheme(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		return s[i+3:]
	}
	return s
}

func loadDataset(name string) (*Dataset, error) {
	file := name + ".tsv"
	if name == "github" {
		file = "github-routes.tsv"
	}
	path := filepath.Join(dataDir(), file)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ds := &Dataset{Name: name}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 {
			return nil, fmt.Errorf("%s: bad line %q", path, line)
		}
		id, err := strconv.Atoi(cols[0])
		if err != nil {
			return nil, fmt.Errorf("%s: bad id %q", path, cols[0])
		}
		r := Row{ID: id, Pattern: cols[1], PatternPath: afterScheme(cols[1]), URL: cols[2], URLPath: "/" + afterScheme(cols[2])}
		if len(cols) >= 4 && cols[3] != "" {
			for _, kv := range strings.Split(cols[3], ";") {
				eq := strings.IndexByte(kv, '=')
				if eq < 0 {
					return nil, fmt.Errorf("%s: bad params %q", path, cols[3])
				}
				r.ParamNames = append(r.ParamNames, kv[:eq])
				r.ParamValues = append(r.ParamValues, kv[eq+1:])
			}
		}
		ds.Rows = append(ds.Rows, r)
	}
	return ds, sc.Err()
}

// shuffledOrder is the lookup order shared with C, Swift and Python: Fisher-Yates from the end with a 64-bit
// LCG (Knuth MMIX constants), seed 42, j = (state >> 33) % i.
func shuffledOrder(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	st := uint64(42)
	for i := n; i > 1; i-- {
		st = st*6364136223846793005 + 1442695040888963407
		j := int((st >> 33) % uint64(i))
		o[i-1], o[j] = o[j], o[i-1]
	}
	return o
}

// verify: every URL reaches its own row with exactly the expected parameters (names and values, any order
// as long as each name appears once). Returns "" or what went wrong.
func verify(ds *Dataset, lookup func(i int) (Lookup, bool)) string {
	for i, r := range ds.Rows {
		got, ok := lookup(i)
		if !ok {
			return r.URL + ": no match"
		}
		if got.Row != i {
			other := strconv.Itoa(got.Row)
			if got.Row >= 0 && got.Row < len(ds.Rows) {
				other = ds.Rows[got.Row].Pattern
			}
			return fmt.Sprintf("%s: matched %s, expected %s", r.URL, other, r.Pattern)
		}
		if len(got.Names) != len(r.ParamNames) || len(got.Values) != len(got.Names) {
			return fmt.Sprintf("%s: parameters %v=%v, expected %v=%v", r.URL, got.Names, got.Values, r.ParamNames, r.ParamValues)
		}
		for k, name := range r.ParamNames {
			found := 0
			for g, gn := range got.Names {
				if gn == name {
					found++
					if got.Values[g] != r.ParamValues[k] {
						return fmt.Sprintf("%s: parameter %s is %q, expected %q", r.URL, name, got.Values[g], r.ParamValues[k])
					}
				}
			}
			if found != 1 {
				return fmt.Sprintf("%s: parameter %s found %d times, expected once", r.URL, name, found)
			}
		}
	}
	return ""
}

func clockNs(id uintptr) uint64 {
	var ts syscall.Timespec
	// RawSyscall: no scheduler hand-off around the call, the thread stays the timing thread.
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, id, uintptr(unsafe.Pointer(&ts)), 0)
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

func threadCPUNs() uint64  { return clockNs(clockThreadCPUTime) }
func processCPUNs() uint64 { return clockNs(clockProcessCPUTime) }

var epoch = time.Now()

func wallNs() uint64 { return uint64(time.Since(epoch)) } // time.Since reads the monotonic clock

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func round1(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 1, 64), 64)
	return v
}

// field is one key of a JSON line, in order.
type field struct {
	key   string
	value interface{}
}

func emit(fields []field) {
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(f.key)
		v, _ := json.Marshal(f.value)
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteString("}\n")
	os.Stdout.WriteString(b.String())
}

// errorRow: a router that could not be built (wrongAnswer false) or answered wrong (true). Not timed.
func errorRow(router, dataset string, routes int, wrongAnswer bool, msg string, extra ...field) {
	fs := []field{{"router", router}, {"lang", "go"}, {"dataset", dataset}, {"routes", routes}, {"verified", false}}
	if wrongAnswer {
		fs = append(fs, field{"wrong_answer", true})
	}
	fs = append(fs, field{"error", msg})
	emit(append(fs, extra...))
}

func logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// timeRouter calibrates, warms up, times the runs and prints the row (bench_common.h's bench_time).
func timeRouter(router string, ds *Dataset, pass PassFunc, extra ...field) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	big := len(ds.Rows) >= 100000
	runs := envInt("BENCH_RUNS", map[bool]int{true: 7, false: 11}[big])
	runMs := envInt("BENCH_RUN_MS", map[bool]int{true: 100, false: 150}[big])
	maxPassMs := envInt("BENCH_MAX_PASS_MS", 1000)
	if runs < 1 {
		runs = 1
	}
	if runs > 1000 {
		runs = 1000
	}
	useCPU := os.Getenv("BENCH_CLOCK") != "wall"
	clk := threadCPUNs
	if !useCPU {
		clk = wallNs
	}
	order := shuffledOrder(len(ds.Rows))
	n := len(ds.Rows)
	var acc uint64

	t0 := clk()
	acc += pass(order, n)
	one := clk() - t0
	if one > uint64(maxPassMs)*1e6 {
		m := int(float64(n) * float64(maxPassMs) * 1e6 / float64(one))
		if m < 1000 {
			m = 1000
			if n < m {
				m = n
			}
		}
		n = m
	}
	var warmTotal, warmPasses uint64
	for warmTotal < uint64(runMs)*500000 {
		t0 = clk()
		acc += pass(order, n)
		warmTotal += clk() - t0
		warmPasses++
	}
	perPass := float64(warmTotal) / float64(warmPasses)
	reps := uint64(float64(runMs)*1e6/perPass + 0.5)
	if reps < 1 {
		reps = 1
	}
	cpu := make([]float64, runs)
	wall := make([]float64, runs)
	proc := make([]float64, runs)
	for r := 0; r < runs; r++ {
		w0, p0, c0 := wallNs(), processCPUNs(), threadCPUNs()
		for k := uint64(0); k < reps; k++ {
			acc += pass(order, n)
		}
		c1, p1, w1 := threadCPUNs(), processCPUNs(), wallNs()
		lookups := float64(reps) * float64(n)
		cpu[r] = float64(c1-c0) / lookups
		proc[r] = float64(p1-p0) / lookups
		wall[r] = float64(w1-w0) / lookups
	}
	sink += acc
	ns := cpu
	clockName := "thread-cpu"
	if !useCPU {
		ns, clockName = wall, "wall"
	}
	sorted := append([]float64(nil), ns...)
	sort.Float64s(sorted)
	fs := []field{{"router", router}, {"lang", "go"}, {"dataset", ds.Name}, {"routes", len(ds.Rows)},
		{"ns_median", round1(median(ns))}, {"ns_min", round1(sorted[0])}, {"ns_max", round1(sorted[runs-1])},
		{"runs", runs}, {"lookups_per_run", reps * uint64(n)}, {"urls_timed", n}, {"verified", true},
		{"clock", clockName}, {"cpu_ns_median", round1(median(cpu))}, {"wall_ns_median", round1(median(wall))},
		{"process_cpu_ns_median", round1(median(proc))}}
	var notes []string
	for _, f := range extra {
		if f.key == "note" {
			notes = append(notes, fmt.Sprint(f.value))
		} else {
			fs = append(fs, f)
		}
	}
	if n < len(ds.Rows) {
		notes = append(notes, fmt.Sprintf("timed the first %d URLs of the shuffled order per run", n))
	}
	if len(notes) > 0 {
		fs = append(fs, field{"note", strings.Join(notes, "; ")})
	}
	emit(fs)
}
