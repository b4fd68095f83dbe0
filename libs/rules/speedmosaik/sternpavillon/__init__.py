"""Sternpavillon: six colours, six rounds, a new joker colour each round, seven stars and bonus places."""
