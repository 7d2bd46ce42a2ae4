# SPDX-License-Identifier: GPL-2.0
# Entry points; each target is one script in scripts/ (see README.md).

.PHONY: all check check-mutants check-diff check-upstream check-debug check-bisect check-w1 check-fresh check-ksrc \
	bench-flush bench-demux bench-ring bench-packet-netns patches maintainers clean-cache help

CACHE ?= /var/cache/netseries
export CACHE

# Fetch base, apply, build, boot, run the selftests, report.
all:
	scripts/loop.sh all

# The test command (.ci/run): static checks + the same loop.
check:
	scripts/loop.sh check

# Each selftest fails without what it covers.
check-mutants:
	scripts/check/check-mutants.sh

# Address deletion on the series kernel = on the base kernel (patch 2).
check-diff:
	scripts/check/check-diff.sh

# Upstream selftests near the change, on the patched kernel.
check-upstream:
	scripts/check/check-upstream.sh

# The selftests on a KASAN/lockdep/kmemleak kernel.
check-debug:
	scripts/check/check-debug.sh

# No new W=1/C=1 warnings in the objects the series touches.
check-w1:
	scripts/check/check-w1.sh

check-fresh:
	scripts/check/check-fresh.sh

check-ksrc:
	scripts/check/check-ksrc.sh

# Every prefix of the series builds.
check-bisect:
	scripts/check/check-bisect.sh

# Benchmarks, one VM boot each.
bench-flush bench-demux bench-ring:
	scripts/bench/bench.sh $(@:bench-%=%)

# The keepalived case: packet sockets in N namespaces, series kernel and
# Debian's 6.12, one boot each.
bench-packet-netns:
	scripts/bench/bench-packet-netns.sh --both

# Regenerate patches/ from the development worktree (maintainers).
patches:
	scripts/series/export-series.sh

# MAINTAINERS-snippet from scripts/get_maintainer.pl.
maintainers:
	scripts/series/gen-maintainers.sh

# Everything the targets keep outside the repository.
clean-cache:
	rm -rf "$(CACHE)"

help:
	@echo 'Targets (each runs one script in scripts/, see README.md):'
	@echo '  all (default)   fetch base, apply, build, boot, run the selftests, report'
	@echo '  check           the same with the static checks (the CI test command)'
	@echo '  check-mutants   each selftest fails on the base kernel or a mutation'
	@echo '  check-diff      address deletes: same addresses and routes on the base and series kernels'
	@echo '  check-upstream  upstream selftests near the change, on the series kernel'
	@echo '  check-debug     the selftests and the fuzzer on a KASAN/lockdep/kmemleak kernel'
	@echo '  check-w1        no new W=1/C=1 warnings (x86_64 gcc, i386 gcc, clang)'
	@echo '  check-bisect    every prefix of the series builds'
	@echo '  check-fresh     make check in a new minimal Debian root, empty cache (slow)'
	@echo '  check-ksrc      make check KSRC=... CACHE=... with the default cache hidden (slow)'
	@echo '  bench-flush, bench-demux, bench-ring   benchmarks, one VM boot each'
	@echo '  bench-packet-netns  packet sockets in N netns under ARP load, series kernel and 6.12'
	@echo '  patches         patches/ from the development worktree $$CACHE/dev'
	@echo '  maintainers     MAINTAINERS-snippet from get_maintainer.pl'
	@echo '  clean-cache     remove $$CACHE'
	@echo 'Knobs (environment or make VAR=...):'
	@echo '  CACHE=/var/cache/netseries  where the base, builds, ccache and runs live'
	@echo '  KSRC=/path/to/net-next      a real tree instead of the Debian base (never written)'
	@echo '  JOBS=N                      parallel build jobs (default: nproc)'
	@echo '  VM=qemu|vng                 the VM runner: our QEMU + init (default) or virtme-ng (installed on first use)'
	@echo '  VM_TIMEOUT=s VM_MEM=2G VM_CPUS=2 KERNEL=bzImage   the VM (scripts/vm/vm-exec.sh)'
	@echo '  ICOUNT=0|1                  QEMU instruction counting (benchmarks: 1)'
	@echo '  FRESH_ROOT=/var/tmp/...     where check-fresh makes its root'
	@echo '  CHECK_BISECT_SELFTEST=1     check-bisect: only its self-test (a prefix without the uapi header fails)'
	@echo '  UPSTREAM_TESTS="prog script.sh:test,..."   upstream tests after ours'
	@echo '  EXTRA_CONFIG="fragment ..."  more kernel config (scripts/loop/build.sh)'
	@echo '  SEED=N DIFF_SCENARIOS=300   check-diff: the scenarios (seed printed; random if unset)'
	@echo '  MUTANT=1                    check-diff: also a mutant of patch 2, which must differ'
	@echo '  BENCH_*                     benchmark sizes and methods (scripts/bench/bench-*.sh headers)'
