"""LinkRouter's Python binding on the shared datasets (rows with router "linkrouter", lang "python").

One lookup = Router.resolve(url) (one lr_router_resolve_packed call, the params dict built) and every parameter
value read, as the peers' passes read theirs. The route's target is its row index; every URL must reach its own
route with exactly the expected parameters before anything is timed.
"""
from __future__ import annotations

import os
import sys

import bench_common as bc

if os.environ.get("LINKROUTER_LIB_DIR") and not os.environ.get("LINKROUTER_LIBRARY"):
    os.environ["LINKROUTER_LIBRARY"] = os.path.join(os.environ["LINKROUTER_LIB_DIR"], "liblinkrouter.so")

import linkrouter  # noqa: E402  (after LINKROUTER_LIBRARY is set)


def main() -> int:
    failures = 0
    for name in bc.dataset_names():
        try:
            ds = bc.load(name)
        except Exception as e:  # noqa: BLE001
            bc.error_row("linkrouter", name, 0, f"dataset could not be read: {e}")
            failures += 1
            continue
        router = linkrouter.Router()
        try:
            router.add_many([(r.pattern, str(i)) for i, r in enumerate(ds.rows)])
        except linkrouter.LinkRouterError as e:
            bc.error_row("linkrouter", ds.name, len(ds), str(e))
            failures += 1
            continue
        urls = [r.url for r in ds.rows]

        def lookup(i):
            m = router.resolve(urls[i])
            return None if m is None else (int(m.target), m.params)

        err = bc.verify(ds, lookup)
        if err:
            bc.log(f"linkrouter {ds.name}: VERIFICATION FAILED: {err}")
            bc.error_row("linkrouter", ds.name, len(ds), err, wrong_answer=True)
            failures += 1
            continue

        def make_pass(order):
            keys = [urls[i] for i in order]
            resolve = router.resolve

            def one_pass():
                acc = 0
                for k in keys:
                    m = resolve(k)
                    if m is not None:
                        for v in m.params.values():
                            acc += len(v)
                return acc
            return one_pass

        bc.time_router("linkrouter", ds, make_pass, version=linkrouter.__version__, binding=linkrouter.binding)
        router.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
