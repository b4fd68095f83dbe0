"""Small shared pieces every service uses: settings, logging, metrics, NATS, the event envelope, auth."""
