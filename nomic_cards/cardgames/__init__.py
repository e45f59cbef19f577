"""The card games played with the dealt cards: the SDK a game imports (:mod:`.sdk`: what the
core's engine, :mod:`nomic_cards.core.engine`, offers a game) and the games shipped here, each a
package of its own beside it. Importing this package loads nothing."""
