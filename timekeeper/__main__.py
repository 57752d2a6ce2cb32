from timekeeper.cli import main

if __name__ == "__main__":  # not when a child process (serve's renders) imports this module
    raise SystemExit(main())
