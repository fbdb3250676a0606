"""Setuptools entry point for robust_ref: every field is read from settings.ini (nbdev 2 classic layout)."""
import configparser
import shlex

import setuptools

cfg = configparser.ConfigParser(delimiters=["="])
cfg.read("settings.ini", encoding="utf-8")
cfg = cfg["DEFAULT"]

licenses = {"apache2": ("Apache Software License 2.0", "OSI Approved :: Apache Software License")}
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
    license=lic[0],
    author=cfg["author"],
    author_email=cfg["author_email"],
    url=cfg["git_url"],
    project_urls={"Documentation": cfg["doc_host"] + cfg["doc_baseurl"]},
    classifiers=[
        "Development Status :: " + statuses[int(cfg["status"])],
        "Intended Audience :: " + cfg["audience"].title(),
        "License :: " + lic[1],
        "Natural Language :: " + cfg["language"].title(),
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ] + ["Programming Language :: Python :: " + v for v in py_versions[py_versions.index(min_python):]],
    packages=setuptools.find_packages(include=["robust_ref", "robust_ref.*"]),
    include_package_data=True,
    package_data={"robust_ref": ["data/*.csv", "data/README.md", "data/SHA256SUMS", "data/published/*.csv", "data/published/README.md",
                                 "grids/*.toml"]},
    install_requires=requirements,
    extras_require={"dev": dev_requirements, "dask": ["dask[distributed]>=2023.1"], "parquet": ["pyarrow>=14"], "xgboost": ["xgboost>=1.7"], "cleanlab": ["cleanlab>=2.6,<3"], "stats": ["scikit-posthocs>=0.9"]},
    python_requires=">=" + min_python,
    zip_safe=False,
    entry_points={"console_scripts": scripts, "nbdev": [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"]},
)
