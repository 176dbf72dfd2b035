import sys

from companion.cli import main

if __name__ == "__main__":        # not when a decoding process (spawned) imports the main module again
    sys.exit(main())
