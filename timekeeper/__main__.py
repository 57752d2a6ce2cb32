from timekeeper.cli import main

main()
