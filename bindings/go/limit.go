package linkrouter

// #include "linkrouter.h"
import "C"

// Limit names one of a router's limits (enum lr_limit); each applies to calls made after it is set.
type Limit int

// The limits of Include/linkrouter.h, with their defaults.
const (
	LimitURLLength      Limit = C.LR_LIMIT_URL_LENGTH       // longest URL (and rewritten URL), bytes; 65536
	LimitSegments       Limit = C.LR_LIMIT_SEGMENTS         // most path segments, host included; 1024
	LimitParams         Limit = C.LR_LIMIT_PARAMS           // most query pairs in a URL; 1024
	LimitNesting        Limit = C.LR_LIMIT_NESTING          // deepest bracket key still nested in the JSON view; 32
	LimitRegexMatch     Limit = C.LR_LIMIT_REGEX_MATCH      // PCRE2 match limit of a rewrite regex; 10000
	LimitRegexDepth     Limit = C.LR_LIMIT_REGEX_DEPTH      // PCRE2 depth limit of a rewrite regex; 1000
	LimitRegexStart     Limit = C.LR_LIMIT_REGEX_START      // last start offset a rewrite regex is tried at; 1024
	LimitPending        Limit = C.LR_LIMIT_PENDING          // most deferred opens one guard's queue holds; 64
	LimitReplyTimeoutMS Limit = C.LR_LIMIT_REPLY_TIMEOUT_MS // ms an open waits for a handler's reply by default; 10000
)
