"""The mailing list's adapter: a message that reaches the game -- on standard input from the mail
server (``mail receive``), from a mailbox file or folder (``mail import``), or from an IMAP
mailbox (``mail poll``) -- is read (:mod:`.parse`, bounded), authenticated (:mod:`.authenticate`:
a DKIM signature of the sender's own domain), understood (:mod:`.reading`: ballots and actions,
quoted text skipped) and handed to the core in one transaction
(:func:`nomic_cards.core.services.mail_in.take_message`); the player is answered with a receipt
(:mod:`.receipts`, sent by :mod:`.posting`, which mails one message to one address).
:mod:`.intake` ties them together for the command line (``cli/mail.py``).
"""
