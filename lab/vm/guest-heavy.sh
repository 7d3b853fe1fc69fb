#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Sourced by guest-check.sh and guest-debug.sh.
# The suite's long hostile-caller tests (and the CLOEXEC race, a fixture of
# its own), and the survey's (the kernel's own calls, and the module's at
# its latest ABI): they do not depend on the ABI or the word size, so runs
# other than the first exclude them with "$HEAVY".
HEAVY="-F race -F reader -F waiting -F exchanges"
for t in the_longest_get_during_a_65536_entry_delete_all_is_short \
	 watch_records_are_charged_to_the_watcher_not_to_the_writer \
	 failed_watches_at_the_fd_limit_leave_nothing_behind \
	 watches_past_the_per_uid_limit_fail_with_EMFILE_and_leave_nothing \
	 a_64_kib_value_takes_at_most_a_page_more_than_its_size \
	 watchers_in_a_full_cgroup_never_make_other_writers_wait \
	 a_delete_all_that_takes_nothing_lets_a_same_cpu_fifo_task_run \
	 watchers_keep_roots_set_and_a_killed_watchers_exit_within_a_constant \
	 watchers_do_not_keep_a_same_cpu_fifo_task_off_its_cpu \
	 reports_the_documented_verdict every_row_is_what_is_pinned_for_this_release \
	 the_survey_leaves_nothing_behind; do
	HEAVY="$HEAVY -T $t"
done
# The tests that assert on time: a host that does not run a vCPU for 100 ms
# makes that vCPU's call look 100 ms long, so they run in a VM of their
# own whose clock counts instructions (QEMU's -icount: the host cannot
# stretch it), make check's "timed" run (fftimed=1); other runs leave them
# out with "$TIMED" (make mutate keeps them, where a mutant's delay counts).
TIMED="-F waiting -T the_longest_get_during_a_65536_entry_delete_all_is_short"
TIMED="$TIMED -T a_delete_all_that_takes_nothing_lets_a_same_cpu_fifo_task_run"
TIMED="$TIMED -T watchers_keep_roots_set_and_a_killed_watchers_exit_within_a_constant"
TIMED="$TIMED -T watchers_do_not_keep_a_same_cpu_fifo_task_off_its_cpu"
TIMED="$TIMED -T watchers_in_a_full_cgroup_never_make_other_writers_wait"
# ... and how the timed run picks them: every test of waits_test, and one of memcg_test's
TIMED_MEMCG="-t watchers_in_a_full_cgroup_never_make_other_writers_wait"
# What a debug kernel (20-40x slower) leaves out of its 64-bit suite too:
# the tests of scale whose figures it cannot honour (16,384 entries times
# 128 watchers, two million records, a table walked for 20 ms per op that
# waits, six times); the rest of the suite runs those paths under lockdep
# and KASAN.
SCALE="-F waiting -T watchers_keep_roots_set_and_a_killed_watchers_exit_within_a_constant"
SCALE="$SCALE -T watchers_do_not_keep_a_same_cpu_fifo_task_off_its_cpu"
