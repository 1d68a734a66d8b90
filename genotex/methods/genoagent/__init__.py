"""GenoAgent, the paper's multi-agent LLM method (``run_agent.py --method genoagent``).

Holds the Project Manager and task set-up (``method``), the roles' prompts
(``prompts``), the step loop of one task (``loop``, ``steps``), reading the
decisions in model replies (``replies``), the rules' clinical hint for the Domain
Expert (``hints``), the executed steps as a notebook (``notebook``) and the
switches of the paper's ablations and the run limits (``settings``).

May import: ``utils``, ``tools``, ``genotex.methods`` (its base, runner, LLM
client and sandbox) and ``genotex.demo.notebooks``; nothing imports it but the
method registry (by name), the command line and ``genotex.testing``.
"""
