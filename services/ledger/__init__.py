"""The ledger: Taler wallets as double-entry accounts, every transaction idempotent."""
