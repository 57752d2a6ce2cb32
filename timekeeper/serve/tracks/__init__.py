"""The tracks the page offers: the built-in ones, a folder, the crew's own (library.py); the
generate form (generate_form.py); the natural voices it offers to install (voice_installs.py)."""
