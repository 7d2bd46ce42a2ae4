# SPDX-License-Identifier: GPL-2.0
# Entry points; each target is one script in scripts/ (see README.md).

.PHONY: all check check-mutants check-upstream check-debug check-bisect check-w1 \
	bench-flush bench-demux bench-ring patches maintainers clean-cache

# Fetch base, apply, build, boot, run the selftests, report.
all:
	scripts/loop.sh run

# The test command (.ci/run): static checks + the same loop.
check:
	scripts/loop.sh check

# Each selftest fails without what it covers.
check-mutants:
	scripts/check-mutants.sh

# Upstream selftests near the change, on the patched kernel.
check-upstream:
	scripts/check-upstream.sh

# The selftests on a KASAN/lockdep/kmemleak kernel.
check-debug:
	scripts/check-debug.sh

# No new W=1/C=1 warnings in the objects the series touches.
check-w1:
	scripts/check-w1.sh

# Every prefix of the series builds.
check-bisect:
	scripts/check-bisect.sh

# Benchmarks, one VM boot each.
bench-flush bench-demux bench-ring:
	scripts/bench.sh $(@:bench-%=%)

# Regenerate patches/ from the development worktree (maintainers).
patches:
	scripts/export-series.sh

# MAINTAINERS-snippet from scripts/get_maintainer.pl.
maintainers:
	scripts/gen-maintainers.sh

clean-cache:
	rm -rf /var/cache/netseries
