"""Setuptools entry point for robust_ref: every field is read from settings.ini (nbdev 2 classic layout)."""
import configparser
import shlex

import setuptools

cfg = configparser.ConfigParser(delimiters=["="])
cfg.read("settings.ini", encoding="utf-8")
cfg = cfg["DEFAULT"]

# SPDX identifiers: setuptools deprecates "License ::" classifiers in favour of an SPDX `license` expression
licenses = {"apache2": "Apache-2.0"}
statuses = ["1 - Planning", "2 - Pre-Alpha", "3 - Alpha", "4 - Beta", "5 - Production/Stable", "6 - Mature", "7 - Inactive"]
py_versions = ["3.10", "3.11", "3.12", "3.13"]

lic = licenses[cfg["license"]]
min_python = cfg["min_python"]
requirements = shlex.split(cfg.get("requirements", ""))
dev_requirements = shlex.split(cfg.get("dev_requirements", ""))
scripts = [s for s in cfg.get("console_scripts", "").split("\n") if s.strip()]

setuptools.setup(
    name=cfg["lib_name"],
    version=cfg["version"],
    description=cfg["description"],
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    keywords=cfg["keywords"].split(),
    license=lic,
    author=cfg["author"],
    author_email=cfg["author_email"],
    url=cfg["git_url"],
    project_urls={"Documentation": cfg["doc_host"] + cfg["doc_baseurl"]},
    classifiers=[
        "Development Status :: " + statuses[int(cfg["status"])],
        "Intended Audience :: " + cfg["audience"].title(),
        "Natural Language :: " + cfg["language"].title(),
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ] + ["Programming Language :: Python :: " + v for v in py_versions[py_versions.index(min_python):]],
    # robust_ref.data holds only data files (no __init__.py): a namespace package, so setuptools ships it without
    # warning "Package 'robust_ref.data' is absent from the `packages` configuration"
    packages=setuptools.find_namespace_packages(include=["robust_ref", "robust_ref.*"], exclude=["*.__pycache__"]),
    include_package_data=True,
    package_data={"robust_ref": ["data/*.csv", "data/README.md", "data/SHA256SUMS", "data/published/*.csv", "data/published/README.md",
                                 "grids/*.toml"]},
    install_requires=requirements,
    extras_require={"dev": dev_requirements, "dask": ["dask[distributed]>=2023.1"], "parquet": ["pyarrow>=14"], "xgboost": ["xgboost>=1.7"], "cleanlab": ["cleanlab>=2.6,<3"], "stats": ["scikit-posthocs>=0.9"]},
    python_requires=">=" + min_python,
    zip_safe=False,
    entry_points={"console_scripts": scripts, "nbdev": [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"]},
)
