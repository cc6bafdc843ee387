"""Running untrusted agents: their processes, the wire format and the limits.

* :mod:`.process` -- :class:`HostedAgent`: start, call under limits, clean up
  (where time and memory limits are enforced);
* :mod:`.monitor` -- reading an agent's CPU time and memory from outside;
* :mod:`.wire` -- the JSON-lines messages between referee and agent process;
* :mod:`.agent_host` -- the program that runs inside the agent's process;
* :mod:`.failures` -- one exception type per way an agent can fail.

Keep this file empty of imports: the agent process imports the package.
"""
