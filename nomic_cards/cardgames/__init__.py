"""The card games played with the dealt cards: the SDK a game imports (:mod:`.sdk`), the engine
that runs every installed game (:mod:`.engine`), Points (:mod:`.points`) and the games shipped
here, each a package of its own beside them. Importing this package loads nothing."""
