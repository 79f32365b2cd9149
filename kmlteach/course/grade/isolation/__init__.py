"""The isolation around a grading kernel: everything that keeps the student's code in.

* :mod:`.policy` — **the** file-access policy (what a kernel may read, list, write): an
  allowlist read by bubblewrap, by the launcher's Landlock rules and by a probe's child;
* :mod:`.bwrap` — bubblewrap's namespaces and mounts, built from the policy;
* :mod:`.launcher` — a script run before the kernel: cgroups, rlimits, the dedicated uid,
  Landlock, seccomp, then ``exec`` of the kernel;
* :mod:`.cgroup` — a cgroup per submission (processes, memory);
* :mod:`.uids` — the dedicated uid of each kernel (root graders);
* :mod:`.reaping` — ending every process of a kernel, grader-side;
* :mod:`.environment` — the kernel's environment variables;
* :mod:`.mode` — which layers this run uses, and the line ``grade`` prints about them.

What runs *inside* the kernel is the other boundary: ``grade/inkernel/``.
"""
