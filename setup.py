"""Copy the shipped scenarios and voices into the wheel, next to the package code."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED = ("scenarios", "voices")


class BuildWithShippedData(build_py):
    def run(self):
        super().run()
        root = Path(__file__).parent
        target = Path(self.build_lib) / "timekeeper" / "_shipped"
        for name in SHIPPED:
            shutil.copytree(root / name, target / name, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithShippedData})
