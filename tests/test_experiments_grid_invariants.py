"""Runner features added for Arch Boost's Fig. 5 and Table 6 (feature contamination, per-task metrics) leave every
existing grid file exactly as it was: its fingerprint, task count, and its first and last task's key, id and seeds are
the values computed on main's code before the features existed (hard-coded here, not recomputed)."""
import pytest

from robust_ref.experiments import example_grids, read_grid

# name: (fingerprint, tasks, first id, first key, first seeds, last id, last key, last seeds) — computed at 5da85ca
BEFORE = {
    'alpha_long_servedio': ('9ab677473e4d72fe', 3600, '3388bbc4f381b4ae', ('long_servedio', 'none', 0.0, 'α=0.5', 0, 0), {'split': 372382019, 'noise': 1200746891922822905, 'fit': 4209036898}, 'd5453204564ca0c1', ('long_servedio', 'uniform_iid', 0.45, 'LogitBoost', 0, 79), {'split': 3134530263, 'noise': 4733370418550732090, 'fit': 363418900}),
    'archboost_long_servedio': ('72bfeeaaa21c8b6d', 1260, '49e341a489b46d3d', ('long_servedio', 'none', 0.0, 'Real AdaBoost', 0, 0), {'split': 372382019, 'noise': 1200746891922822905, 'fit': 233379689}, 'cb414dc1b27cfa37', ('long_servedio', 'uniform_iid', 0.4, 'ARB-4', 0, 19), {'split': 568882161, 'noise': 1133942180990845082, 'fit': 1626023725}),
    'leaderboard': ('241a78248b30bea7', 21450, '871d71739b79e06a', ('banknote', 'none', 0.0, 'adaboost', 0, 0), {'split': 2435110413, 'noise': 3670673070219783581, 'fit': 3524000209}, 'c577c5b1320b51b2', ('titanic', 'adversarial', 0.3, 'cl_logistic', 4, 0), {'split': 2686162426, 'noise': 3498449590583778230, 'fit': 1564888189}),
    'meanclf_long_servedio': ('c64fa4184dd4f1df', 8400, 'e7750f936de2f7d9', ('ls_gamma12', 'none', 0.0, 'unhinged', 0, 0), {'split': 3584062810, 'noise': 6537168919321896754, 'fit': 4186484512}, '1e5ec724b9da2efb', ('ls_gamma48', 'uniform', 0.4, 'mean_classifier', 99, 0), {'split': 128751186, 'noise': 3686247874368060978, 'fit': 3917921946}),
    'quick': ('2ca3366e8b8821fe', 36, '1467d9643d4b3385', ('heart', 'none', 0.0, 'adaboost', 0, 0), {'split': 2777439286, 'noise': 8914034232948244883, 'fit': 3825262796}, '4a9b9ce783a413fc', ('heart', 'class_conditional', 0.2, 'arb_gamma', 1, 0), {'split': 3531006769, 'noise': 1528637049611446175, 'fit': 1647561876}),
    'rmboost_figure5_n100': ('e8f69a8f96b1b909', 600, '1b19aabc3f8bff01', ('credit', 'none', 0.0, 'AdaBoost', 0, 0, ('max_train', 100)), {'split': 848533397, 'subsample': 3707245015, 'noise': 7159300964210361969, 'fit': 118299098}, 'd0ddaf6c1ca64d98', ('qsar', 'none', 0.0, 'RMBoost', 0, 99, ('max_train', 100)), {'split': 1806079116, 'subsample': 328330831, 'noise': 7752927274592475259, 'fit': 2432680854}),
    'rmboost_figure5_n300': ('5d0c5f68bf5beae1', 600, '3b5bf7782ff068b8', ('credit', 'none', 0.0, 'AdaBoost', 0, 0, ('max_train', 300)), {'split': 848533397, 'subsample': 345315745, 'noise': 3464831940533120019, 'fit': 1121747413}, '16eb85a51ed13290', ('qsar', 'none', 0.0, 'RMBoost', 0, 99, ('max_train', 300)), {'split': 1806079116, 'subsample': 978982928, 'noise': 3421062726131872685, 'fit': 2094290889}),
    'rmboost_figure5_n500': ('24dee4ffba11dac4', 600, '3804a317c3da6ee1', ('credit', 'none', 0.0, 'AdaBoost', 0, 0, ('max_train', 500)), {'split': 848533397, 'subsample': 1634175599, 'noise': 8974364279455303452, 'fit': 110614361}, '55625debc61d12e8', ('qsar', 'none', 0.0, 'RMBoost', 0, 99, ('max_train', 500)), {'split': 1806079116, 'subsample': 3259809858, 'noise': 3943247817865565999, 'fit': 671913579}),
    'rmboost_figure5_n700': ('7707292158198bd7', 300, '447aaa6ea2148265', ('qsar', 'none', 0.0, 'AdaBoost', 0, 0, ('max_train', 700)), {'split': 1512027252, 'subsample': 1374761370, 'noise': 4081697592520048828, 'fit': 4226821533}, 'e98efd01a0d4040c', ('qsar', 'none', 0.0, 'RMBoost', 0, 99, ('max_train', 700)), {'split': 1806079116, 'subsample': 173754649, 'noise': 4771957338155811992, 'fit': 1328712196}),
    'rmboost_figure5_n900': ('1e800c27a78d3ba4', 300, 'bec142ef11d53759', ('qsar', 'none', 0.0, 'AdaBoost', 0, 0, ('max_train', 900)), {'split': 1512027252, 'subsample': 3644605682, 'noise': 7097134156848599552, 'fit': 1695712898}, '9cb69e52ffd40267', ('qsar', 'none', 0.0, 'RMBoost', 0, 99, ('max_train', 900)), {'split': 1806079116, 'subsample': 3428655247, 'noise': 4589360248032597170, 'fit': 4175384276}),
    'rmboost_figure6': ('42a21bf8ceb9810f', 12600, 'd33e1058afcad376', ('german_numer', 'none', 0.0, 'RMBoost', 0, 0), {'split': 339596760, 'noise': 616892931528587346, 'fit': 2764208943}, 'cf69b525b46e2a70', ('blood_transfusion', 'uniform', 0.2, 'RMBoost lam=1', 0, 199), {'split': 3592462521, 'noise': 6503084260441661082, 'fit': 2856260645}),
    'rmboost_onesided': ('fa1ad4dfa1dd86cc', 22000, 'dcf179e9acd194cf', ('diabetes', 'none', 0.0, 'AdaBoost', 0, 0), {'split': 1127300248, 'noise': 7776542947397206126, 'fit': 1543659405}, '95a727e219026970', ('raisin', 'one_sided', 0.3, 'RMBoost', 0, 499), {'split': 1848397953, 'noise': 5952432059284901387, 'fit': 354354143}),
    'rmboost_table3': ('485f44d123b7c32e', 36000, '1460dadf8c6da8e1', ('titanic', 'none', 0.0, 'AdaBoost', 0, 0), {'split': 2737186582, 'noise': 5172577943610789503, 'fit': 1085933086}, 'cabd9eb24c0036b5', ('climate', 'adversarial', 0.2, 'RMBoost', 0, 99), {'split': 186569565, 'noise': 3866880437411091562, 'fit': 3615854109}),
    'rmboost_table5': ('6b2b856fc8fbb1fb', 1800, 'a688867fe7d9a9ca', ('magic', 'none', 0.0, 'AdaBoost', 0, 0, ('max_train', 5000)), {'split': 2825311152, 'subsample': 2944826783, 'noise': 2136633587981148112, 'fit': 4002875509}, 'c6d6130c1b2ace67', ('synthetic', 'adversarial', 0.2, 'RMBoost', 0, 19, ('max_train', 5000)), {'split': 3646767400, 'subsample': 2723770229, 'noise': 4493673251420866783, 'fit': 3962313792}),
    'tour': ('1ce59430fbefe75e', 1155, '1467d9643d4b3385', ('heart', 'none', 0.0, 'adaboost', 0, 0), {'split': 2777439286, 'noise': 8914034232948244883, 'fit': 3825262796}, '16e79d9c875196f5', ('german_numer', 'one_sided', 0.2, 'arb_gamma', 4, 0), {'split': 3593289851, 'noise': 2670674514341210158, 'fit': 2682131521}),
    'trees_binary': ('aed7676bb16e5691', 4320, '95347b54a5fe6ff2', ('banknote', 'none', 0.0, 'DT-ANE', 0, 0), {'split': 2191245802, 'noise': 4555904247909812160, 'fit': 2127888060}, 'fd4aca49024f02ed', ('ionosphere', 'class_conditional', 0.4, 'RF-Ranking', 4, 0), {'split': 3333235787, 'noise': 2454007117137897, 'fit': 2089068476}),
}


# the grids added with those features (records are made from them): their values when they were added, at 9a53884
ADDED = {
    'alpha_breast_cancer': ('9c40dda4bad050da', 400, '8f0d30fc97044afb', ('wdbc', 'none', 0.0, 'α=0.5', 0, 0), {'split': 749287336, 'noise': 2014830309301094432, 'fit': 3184219195}, '94824ce3108010f6', ('wdbc', 'uniform_iid', 0.3, 'α=10', 0, 19), {'split': 1536068617, 'noise': 9119482009116678415, 'fit': 1238879929}),
    'alpha_gauss_mixture': ('6848b773ab603314', 2400, 'dfdd1c3a940db38f', ('gmm', 'none', 0.0, 'GD α=0.5', 0, 0), {'split': 525226719, 'noise': 7379478258447269432, 'fit': 1849403732}, '97ac5f3f0c8637ec', ('gmm', 'uniform_iid', 0.4, 'L-BFGS α=10', 0, 29), {'split': 1802099241, 'noise': 4216941550223202719, 'fit': 3361103278}),
    'archboost_figure5': ('850a67cf0075ee12', 5440, '7b12b3c945608c35', ('hastie', 'none', 0.0, 'ARB-1.5', 0, 0), {'split': 3196426347, 'noise': 398214540708231398, 'fit': 4265716039}, '7b792d585a227b17', ('quantiles', 't4_features', 0.4, 'RobustBoost', 0, 19), {'split': 3698619897, 'noise': 2784081403577134817, 'fit': 2938011924}),
    'archboost_table6': ('954de2d74682d793', 40, '5c881e87299db16e', ('hastie', 't4_features', 0.05, 'ARB-2', 0, 0), {'split': 3196426347, 'noise': 226435565988442343, 'fit': 2547881312}, '6e92214eb2260c00', ('hastie', 't4_features', 0.2, 'Real AdaBoost', 0, 4), {'split': 1304638768, 'noise': 3032239330169365265, 'fit': 648995283}),
}

# the grids of Arch Boost's Tables 7–9 and Fig. 5's truncated exponential (class-balanced split, CV-chosen stopping,
# Welch screening): their values when they were added, on branch h/arch85 (the fingerprints of the CV-stopped methods
# include scikit-learn's Pipeline/estimator parameters, so a scikit-learn that adds a parameter changes them)
ADDED_ARCH85 = {
    'archboost_table7': ('b433ae0a426b1c99', 1600, 'fa9109682fc3eae8', ('wdbc', 'none', 0.0, 'ARB-2', 0, 0, ('train_per_class', 150)), {'split': 2653647098, 'noise': 7198820840327400110, 'fit': 447876921}, 'c2c80f8692a3e867', ('wdbc', 'uniform', 0.15, 'Real AdaBoost', 0, 99, ('train_per_class', 150)), {'split': 1894821115, 'noise': 4491490725027698483, 'fit': 222568650}),
    'archboost_table8': ('38b430601728848e', 320, '5da1fec5240f15ef', ('sensorless_surrogate', 'none', 0.0, 'ARB-2', 0, 0), {'split': 3302407600, 'noise': 831058103079497095, 'fit': 1159717049}, '340da9ba4c599c0c', ('sensorless_surrogate', 'uniform', 0.15, 'Real AdaBoost', 0, 19), {'split': 2787439007, 'noise': 8873630390555466474, 'fit': 2439194394}),
    'archboost_table9': ('ae69db23c637991a', 1600, 'd8b11842c0c6bacb', ('gse20194_surrogate', 'none', 0.0, 'ARB-2', 0, 0, ('train_per_class', 50)), {'split': 4055507998, 'noise': 3889506452112102963, 'fit': 3649633466}, 'bdb3d8e43137759c', ('gse20194_surrogate', 'uniform', 0.15, 'Real AdaBoost', 0, 99, ('train_per_class', 50)), {'split': 2690638289, 'noise': 369380224886629919, 'fit': 3425760609}),
    'archboost_figure5_truncexp': ('105704e33ce1e86e', 680, '7bb117fbd5f6ef40', ('hastie', 'none', 0.0, 'trunc. exp', 0, 0), {'split': 3196426347, 'noise': 398214540708231398, 'fit': 2046333344}, 'a616931425b3134d', ('quantiles', 't4_features', 0.4, 'trunc. exp', 0, 19), {'split': 3698619897, 'noise': 2784081403577134817, 'fit': 2067341865}),
}

# α-loss's Fig. 8 stand-in (clean-reference and test-set metrics, stratified noise, a column subset of an sklearn
# dataset): its values when it was added, on branch h/fig8
ADDED_FIG8 = {
    'alpha_covid_standin': ('eb3b9b65836c62ab', 260, '01ebb1cf7b127c86', ('wdbc8', 'none', 0.0, 'α=0.6', 0, 0), {'split': 3104142061, 'noise': 5000097537507137743, 'fit': 3799185042}, '87f910de36dbe2ae', ('wdbc8', 'stratified', 0.15, 'α=3', 0, 4), {'split': 1938998684, 'noise': 6597567264693540992, 'fit': 2923107562}),
}
# the mean classifier's Fig. 1 (recursive herding on 3-vs-8 digits: a scikit-learn dataset's classes/scale options,
# mean_herd / mean_random_subset, the support_fraction metric): its values when it was added, on branch h/herd, but for
# the fingerprint, which names the estimator's class path: 8d2ff29fe911ba9f while RecursiveHerdingClassifier lived in
# the registry, 6c64edc3c909e313 since it moved to robust_ref.mean_classifier (task ids, keys and seeds unchanged)
ADDED_HERD = {
    'meanclf_figure1': ('6c64edc3c909e313', 1420, '2c26e04a18b21e4c', ('digits_3v8', 'none', 0.0, 'full mean', 0, 0), {'split': 1278320413, 'noise': 3960233887562431234, 'fit': 2946412208}, 'c36fda2eb4d0c68f', ('digits_3v8', 'none', 0.0, 'random 20', 0, 19), {'split': 1225563251, 'noise': 1849549848262103818, 'fit': 2325250419}),
}
# the adversarial one-sided sweep of the RMBoost authors' rebuttal (noise one_sided_adversarial): its values when it was
# added, at a7c632f + the noise model; its first task is rmboost_onesided's (rate 0 is shared)
ADDED_OSA = {
    'rmboost_onesided_adversarial': ('3a809df19012abc4', 4400, 'dcf179e9acd194cf', ('diabetes', 'none', 0.0, 'AdaBoost', 0, 0), {'split': 1127300248, 'noise': 7776542947397206126, 'fit': 1543659405}, '19ff1fb83301a3ff', ('raisin', 'one_sided_adversarial', 0.3, 'RMBoost', 0, 99), {'split': 2961037039, 'noise': 1294780470505696667, 'fit': 3762399897}),
}
ALL = {**BEFORE, **ADDED, **ADDED_ARCH85, **ADDED_FIG8, **ADDED_HERD, **ADDED_OSA}


@pytest.mark.parametrize("name", sorted(ALL))
def test_existing_grid_files_keep_ids_keys_and_seeds(name):
    g = read_grid(example_grids()[name])
    t = g.tasks()
    got = (g.fingerprint(), len(t), t[0].task_id, t[0].key, t[0].seeds(), t[-1].task_id, t[-1].key, t[-1].seeds())
    assert got == ALL[name]


def test_every_shipped_grid_that_existed_is_checked():
    "A grid file removed or renamed would silently drop out of the check above."
    assert set(ALL) <= set(example_grids())


def test_a_parameter_added_later_changes_the_fingerprint_only_when_set():
    "RMBoost's dual/dual_smoothing came after its records: left out of `describe` at the old behaviour, kept otherwise."
    from robust_ref.experiments import get_method
    plain, vertex = get_method("rmboost").describe(), get_method("rmboost", dual="vertex").describe()
    assert "dual" not in plain["params"] and plain == vertex
    smoothed = get_method("rmboost", dual="smoothed").describe()["params"]
    assert smoothed["dual"] == "smoothed" and "dual_smoothing" not in smoothed
    assert get_method("rmboost", dual="smoothed", dual_smoothing=0.5).describe()["params"]["dual_smoothing"] == 0.5
