# SPDX-License-Identifier: GPL-2.0
# Entry points: each target runs one script in scripts/ (see README.md).
# The "##" lines are `make help`: the one table of targets and knobs; a
# static check (scripts/check/check-static.sh) keeps it and scripts/check/
# in step.

.PHONY: all check patches maintainers results clean-cache help

## Targets:
##   all (default)     fetch base, apply, build, boot, run the selftests, report
all:
	scripts/loop.sh all

##   check             the same with the static checks (the CI test command)
check:
	scripts/loop.sh check

##   check-mutants     each selftest fails on the base kernel or a mutation
##   check-diff        address deletes and adds: same addresses and routes on the base and series kernels
##   check-upstream    upstream selftests near the change, on the series kernel
##   check-debug       the selftests and random address layouts on a KASAN/lockdep/kmemleak kernel
##   check-w1          no new W=1/C=1 warnings (x86_64 gcc, i386 gcc, clang)
##   check-bisect      every prefix of the series builds
##   check-fresh       make check in a new minimal Debian root, empty cache (slow)
##   check-ksrc        make check KSRC=... CACHE=... with the default cache hidden (slow)
check-%:
	scripts/check/check-$*.sh

##   bench-flush       flush times by method, layout and N (one boot)
##   bench-demux       early demux knobs: forwarding and request-response (one boot)
##   bench-ring        AF_PACKET receive paths under load (one boot)
##   bench-packet-netns  packet sockets in N netns under ARP load (series kernel and 6.12)
bench-%:
	scripts/bench/bench.sh $*

##   patches           patches/ from the development worktree $CACHE/dev
patches:
	scripts/series/export-series.sh

##   maintainers       MAINTAINERS-snippet from get_maintainer.pl
maintainers:
	scripts/series/gen-maintainers.sh

##   results           every published table, from the committed runs in Documentation/runs/
results:
	scripts/results.sh

##   clean-cache       remove $CACHE (everything the targets keep outside the repository)
clean-cache:
	bash -c '. scripts/lib.sh && rm -rf "$$CACHE"'

##   help              this text
help:
	@sed -n 's/^## \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

## Knobs (environment or make VAR=..., default in brackets):
##   CACHE=dir         base, builds, ccache, runs [/var/cache/netseries]
##   KSRC=dir          a real net-next tree instead of the Debian base, never written [unset]
##   JOBS=n            parallel build jobs [nproc]
##   EXTRA_CONFIG="fragment ..."  more kernel config for the loop's kernel [none]
##   VM=qemu|vng       the VM runner: our QEMU + init, or virtme-ng (installed on first use) [qemu]
##   VM_TIMEOUT=s VM_MEM=size VM_CPUS=n  the VM [2400, 2G, 2; check-debug: 10800 s, 3G; bench-*: 5400 s, 3G]
##   KSFT_TIMEOUT=s    each selftest's timeout [selftests/settings; check-debug: 7200]
##   VM_ACCEL="kvm tcg"  accelerators to try [tcg: a KVM guest hangs on these machines]
##   VM_APPEND="..."  more kernel command line for the VM [none]
##   KERNEL=bzImage    the kernel scripts/vm/vm-exec.sh boots [$CACHE/build/arch/x86/boot/bzImage]
##   ICOUNT=0|1        QEMU instruction counting [bench-*: 1, else 0]
##   UPSTREAM_TESTS="prog script.sh:test,..."  upstream tests after ours [psock_tpacket rtnetlink.sh:kci_test_promote_secondaries]
##   SEED=n DIFF_SCENARIOS=n  check-diff's scenarios [random, printed; 300]
##   DIFF_LAYERS="4 6 a"  check-diff's layers: IPv4, IPv6, IPv4 adds [all]
##   MUTANT=1          check-diff: also two mutants (patches 2.2 and 2.6; patch 5.3), which must differ in each layer [0]
##   DEBUG_SEED=n DEBUG_SCENARIOS=n  check-debug's random layouts and adds [1; 60 of each]
##   DEBUG_SERIES=N-tree-topic  check-debug: that series alone on the base, its selftests only [unset: all]
##   MUTANTS="base mutant ..."  check-mutants: the variants to run [all]
##   SERIES_ONLY="N-tree-topic ..."  apply those series only [all]
##   SELFTESTS="a.sh ..."  run those selftest scripts of ours only [all]
##   DEV=dir           make patches: the development worktree exported [$CACHE/dev]
##   W1_VARIANTS="..."  check-w1's builds [x86_64-gcc i386-gcc x86_64-clang]
##   CHECK_BISECT_SELFTEST=1  check-bisect: only its self-test [0]
##   BISECT_SERIES=N-tree-topic  check-bisect: build only the prefixes that end in that series [unset: all]
##   FRESH_ROOT=dir    where check-fresh makes its root [/var/tmp/netseries-fresh]
##   BENCH_KERNEL=series|base|both  bench-*: the kernel measured, base = without the series, both = one run, a boot of each (bench-packet-netns: series only, a boot of it and of 6.12) [series]
##   BENCH_ONE, BENCH_RFC, BENCH_HOST, BENCH_FILT="n ..."  bench-flush sizes per layout [10000 20000 40000]
##   BENCH_HOST6, BENCH_ONE6="n ..."  bench-flush's IPv6 layouts (/128s; one /64) [none]; BENCH_IP6_MAX [none]
##   BENCH_PER=n       bench-flush: addresses per /24 [250]
##   BENCH_METHODS="..."  bench-flush methods [ip secfirst plain flag flagprim bulk]
##   BENCH_IP_PATCHED=path  bench-flush: an ip with the iproute2 companion patch, adds method ipnew [unset]
##   BENCH_IP_MAX=n BENCH_IP_ONE_MAX=n  bench-flush: largest N for stock ip, /24s and /32s; one subnet [40000; 2000]
##   BENCH_IP_RFC_MAX=n  bench-flush: largest N for stock ip in /24s [BENCH_IP_MAX]
##   BENCH_IP_FILT_MAX=n  bench-flush: largest N for stock ip's filtered flushes [40000]
##   BENCH_HOST_ALL_MAX=n  bench-flush: largest /32 N for secfirst, plain, flag (flagprim stands for them) [40000]
##   BENCH_ADD_N="n ..."  bench-flush: adds of N (host, rfc, one), one socket against stock ip -batch [none]
##   BENCH_ADD_BATCH=n  bench-flush: largest N for the ip -batch adds [none: every N]
##   BENCH_SMALL="n ..." BENCH_SMALL_REPS=n  bench-flush: one address added and deleted on a device of n addresses (n < 250) [none; 2000]
##   BENCH_NS, BENCH_KA_NS="n ..."  bench-packet-netns: namespace counts, plain and keepalived [1 50 236]
##   BENCH_KINDS="..."  bench-packet-netns: socket kinds [none ka p0]
##   BENCH_RATES="..."  bench-packet-netns: offered ARPs per second [700 5000]
##   BENCH_EVENTS=n BENCH_EVENTS_ALL=n  bench-packet-netns: ARPs per measurement [500; 200]
