"""`speed`: the platform's command-line tool for operators and auditors (audit, rebuild, operator tokens)."""
