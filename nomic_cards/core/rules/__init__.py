"""What the Cards proposal allows and requires, as pure functions over a ledger State."""
