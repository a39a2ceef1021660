#!/usr/bin/env python3
"""Does a skill match's ``relevance`` tell a fitting skill from the best of nothing?

    python bench/skills_relevance.py --threads 2          # collect (kept in --records), print the test tables
    python bench/skills_relevance.py --threads 2 --fit    # measure the null, fit on dev, print the constants
    python bench/skills_relevance.py --threads 2 --no-typical --records bench/results/skills-relevance-raw.json
                                                          # the same with raw cosines (kenning.retrieval.typical off)

Each library is a folder of real skills searched by ``SkillSearch.search``, the engine of
``kb.skills.skills_search``: MetaTool and Seal-Tools (``skills_match.write_skills``: one skill per
tool) and the two libraries of ``bench/data/skills_everyday`` (``public``: seventeen skills shaped
like the public Anthropic ones; ``scan``: the benign skills of the scanner's corpus, in English and
Chinese). Asked of each library:

* its own queries, where a skill fits: MetaTool's (``METATOOL_PER_TOOL`` sampled queries per tool,
  and ``FIT_ZH``, 40 Chinese tasks written for MetaTool tools), every Seal-Tools query, and the
  hand-written tasks of ``skills_everyday`` in both languages, which name every skill that fits;
* *no-fit* tasks, where no skill of the library fits: LoCoMo questions (English) and MemDaily
  questions (Chinese), personal-memory questions no tool answers, ``NO_FIT``, everyday acts written
  by hand in both languages, and for the two small libraries everyday digital requests
  (``skills_everyday``'s ``no_fit``: a flight, the weather; MetaTool and Seal-Tools have tools for
  those).

Printed per own query set and split: the AUROC of the best match's relevance (own queries against
no-fit tasks); the share of no-fit tasks answered with no skill at the floor
(``kenning.skills.relevance.DEFAULT_SKILL_MIN_RELEVANCE``), per source; Hit@1 and R@5 of the own
queries with every match and at the floor.

Splits: every query by a hash of its id (``relevance.split_of``'s rule). ``--fit`` measures the
null of the skill calibration (the cosine of each dev no-fit task with every skill of the library:
nothing there fits it), fits the logistic on the dev split only (``--features``, ``--relevance-rows``),
then picks the highest floor at which dev Hit@1 and R@5 of every own set drop by at most
``--max-loss`` points (or one query of a small set).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import zlib
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_DATA, BatchedQueries, git_commit, load_recipes, write_json  # noqa: E402
from relevance import auroc, fit_logistic  # noqa: E402
from skills_match import write_skills  # noqa: E402

from kenning import Kenning  # noqa: E402
from kenning.embed import default_embedder  # noqa: E402
from kenning.skills import relevance as srel  # noqa: E402
from kenning.retrieval.mixed import QueryNull, pooled  # noqa: E402
from kenning.skills import search as search_module  # noqa: E402
from kenning.skills.search import skill_language  # noqa: E402
from kenning.retrieval.typical import TYPICAL  # noqa: E402
from kenning.store.vectors import LANGUAGES, Scored  # noqa: E402
from kenning.text import language  # noqa: E402

console = Console(width=170)
K = 10
LIBRARIES = ("metatool", "seal_tools", "public", "scan")
EVERYDAY = ("public", "scan")  # the libraries of bench/data/skills_everyday, with their hand-written tasks
METATOOL_PER_TOOL = 5
NO_FIT_SETS = ("locomo", "memdaily", "hand_en", "hand_zh", "digital_en", "digital_zh")
# (library, own query set): the floor holds each to ``--max-loss`` points on dev
OWN_SETS = (("metatool", "metatool"), ("metatool", "metatool_zh"), ("seal_tools", "seal_tools"),
            ("public", "public_en"), ("public", "public_zh"), ("scan", "scan_en"), ("scan", "scan_zh"))
# each no-fit set's language
NATIVE = {"locomo": "en", "memdaily": "zh", "hand_en": "en", "hand_zh": "zh", "digital_en": "en", "digital_zh": "zh"}
TASKS = Path(__file__).resolve().parent / "data" / "skills_everyday" / "tasks.json"
SCAN = Path(__file__).resolve().parent / "data" / "skills_scan"
MIN_NULL_PAIRS = 50
# no-fit sets not measured for the null: LoCoMo's questions, long and about people by name, score
# every skill about 0.04 below what the short tasks an agent searches skills with score, in every
# library; counted in, they put the English null there and short English tasks 2 spreads above it
NULL_LEFT_OUT = ("locomo",)
# the floors tried: fine steps where small probabilities live, coarser above
FLOORS = sorted({round(float(f), 3) for f in np.concatenate([np.arange(0.001, 0.05, 0.001),
                                                                 np.arange(0.05, 0.95, 0.005)])})
RECORDS = Path(__file__).resolve().parent / "results" / "skills-relevance.json"

# Everyday tasks no tool of MetaTool or Seal-Tools performs: physical or personal acts, said the
# way a person says them to an agent. Written for this benchmark; none names a tool.
NO_FIT_EN = [
    "water the tomato plants on the balcony", "fold the laundry and put it away", "take the dog for a walk",
    "hug my daughter before she leaves for school", "apologise to my neighbour for the noise last night",
    "tie my shoelaces properly", "change the baby's diaper", "iron my shirt for the wedding",
    "peel and chop three onions", "sweep the kitchen floor", "fix the squeaky door hinge with some oil",
    "carry the groceries up the stairs", "brush the cat's fur", "sew a button back onto my coat",
    "put fresh sheets on the bed", "knit a scarf for my grandmother", "teach my son to ride a bike",
    "clean the bathroom mirror", "wash the car by hand this afternoon", "rake the leaves in the garden",
    "make the bed before breakfast", "defrost the freezer", "take out the recycling bin tonight",
    "hang the picture frame in the hallway", "pick up my sister from the train station",
    "sing a lullaby to the kids", "stretch my legs after the run", "polish my leather boots",
    "repot the cactus into a bigger pot", "comfort a friend whose cat died",
]
NO_FIT_ZH = [
    "给阳台上的花浇水", "把洗好的衣服叠起来", "带狗出去散步", "送女儿上学前抱抱她", "跟邻居当面道个歉",
    "把鞋带系好", "给宝宝换尿布", "把婚礼要穿的衬衫熨平", "切三个洋葱", "把厨房地板扫干净",
    "给吱吱响的门轴上点油", "把买的菜搬上楼", "给猫梳毛", "把外套上掉的扣子缝回去", "给床换上干净的床单",
    "给奶奶织一条围巾", "教儿子骑自行车", "擦干净浴室的镜子", "下午自己动手洗车", "把院子里的落叶扫起来",
    "早饭前把床铺好", "给冰箱除霜", "今晚把垃圾桶拿出去", "把相框挂在走廊墙上", "去火车站接妹妹",
    "给孩子们唱摇篮曲", "跑完步拉伸一下腿", "把皮靴擦亮", "把仙人掌换到大一点的花盆里", "安慰一个刚失去猫的朋友",
]

# Chinese tasks that MetaTool tools fit (the tool sets are English only): a task in Chinese must
# still find its English skill, and without these the fit never sees a Chinese task that fits.
FIT_ZH = {
    "WeatherTool": "明天北京的天气怎么样", "RestaurantBookingTool": "帮我订一家今晚七点的餐厅",
    "MixerBox_Translate_AI_language_tutor": "把这段话翻译成英文", "what_to_watch": "推荐一部最近好看的电视剧",
    "EarthquakeTool": "最近哪里发生了地震", "recipe_retrieval": "给我找一个红烧肉的菜谱",
    "ExchangeTool": "一百美元能换多少人民币", "JobTool": "帮我找上海的软件工程师职位",
    "NewsTool": "今天有什么国际新闻", "MusicTool": "帮我建一个跑步时听的歌单", "calculator": "计算一下 37 乘以 48",
    "create_qr_code": "把这个网址做成二维码", "Tax_Calculator": "在加州买一台一千美元的电脑要交多少销售税",
    "HouseRentingTool": "我想在市中心租一套两居室", "TripTool": "帮我订下周去东京的酒店",
    "ResumeTool": "帮我写一份简历并提点修改意见", "Chess": "我想下一盘国际象棋", "Sudoku": "来玩一局数独",
    "word_counter": "这篇文章有多少个字", "MemeTool": "做一个搞笑的表情包", "NASATool": "找几张 NASA 拍的火星照片",
    "PDF_Exporter": "把刚才的回答导出成 PDF", "EmailByNylas": "帮我查看一下邮箱里的新邮件",
    "IndoorPlants": "室内的绿萝叶子发黄怎么办", "DietTool": "算一下这顿午饭有多少卡路里",
    "korea_subway": "首尔地铁从江南站到明洞怎么换乘", "FinanceTool": "今天股市行情怎么样",
    "ImageSearch": "给我的文章找一张免费的配图", "diceroller": "帮我掷一个二十面骰子", "mbti": "我想做一个 MBTI 性格测试",
    "Horoscopes_by_Inner_Self": "看看我这周的星座运势", "PodcastTool": "找一个讲历史的播客并总结内容",
    "CourseTool": "推荐一门学习 Python 的在线课程", "LawTool": "查一下关于劳动合同的法律条文",
    "ProductComparison": "比较一下这两款手机哪个更好", "SummarizeAnything_pr": "总结一下这个 YouTube 视频讲了什么",
    "speechki_tts_plugin": "把这段文字转成语音", "ChatOCR": "识别这张照片里的文字",
    "airqualityforeast": "周末去户外活动，帮我看看空气质量预报", "TicTacToe": "陪我玩一局井字棋",
}


def split_of(qid: str) -> str:
    return "dev" if zlib.crc32(qid.encode()) % 2 == 0 else "test"


# -- collecting -------------------------------------------------------------------------------------


def everyday_library(name: str) -> dict[str, str]:
    """Skill name -> description of one library of bench/data/skills_everyday: written there
    (``public``), or the benign skills of the scanner's corpus (``scan``)."""
    tasks = json.loads(TASKS.read_text(encoding="utf-8"))
    if name == "public":
        return dict(tasks["libraries"]["public"])
    cases = json.loads((SCAN / "cases.json").read_text(encoding="utf-8"))["cases"]
    corpus = {}
    for case in cases:
        path = SCAN / "cases" / case["name"] / "SKILL.md"
        if case["label"] == "benign" and path.exists():
            front = yaml.safe_load(path.read_text(encoding="utf-8").split("---", 2)[1])
            corpus[front["name"]] = front["description"]
    return corpus


def everyday_queries(name: str) -> tuple[dict[str, str], list[tuple[str, str, str, set[str]]]]:
    corpus = everyday_library(name)
    own = []
    for task in json.loads(TASKS.read_text(encoding="utf-8"))["fit"]:
        if task["library"] == name:
            unknown = set(task["gold"]) - set(corpus)
            assert not unknown, f"{task['text']!r}: no skill {sorted(unknown)} in library {name!r}"
            source = f"{name}_{task['language']}"
            own.append((source, f"{source}/{task['text']}", task["text"], set(task["gold"])))
    return corpus, own


def own_queries(name: str, recipes: Any) -> tuple[dict[str, str], list[tuple[str, str, str, set[str]]]]:
    """The library's tools and its (set, query id, text, gold tools); MetaTool's with ``FIT_ZH``."""
    if name in EVERYDAY:
        return everyday_queries(name)
    task = (recipes.load_metatool(max_per_tool=METATOOL_PER_TOOL) if name == "metatool"
            else recipes.load_seal_tools())[0]
    own = [(name, f"{name}/{q[0]}", q[1], set(q[2])) for q in task["queries"]]
    if name == "metatool":
        own += [("metatool_zh", f"metatool_zh/{tool}", text, {tool}) for tool, text in FIT_ZH.items()]
    return task["corpus"], own


def no_fit_queries(recipes: Any, args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """(set, query id, text) of the tasks no skill fits: a seeded sample of LoCoMo and MemDaily
    questions, and the hand-written tasks."""
    out: list[tuple[str, str, str]] = []
    for name, tasks in (("locomo", recipes.load_locomo()), ("memdaily", recipes.load_memdaily())):
        every = [(str(q[0]), q[1]) for t in tasks for q in t["queries"]]
        for qid, text in random.Random(f"{args.seed}:{name}").sample(every, min(args.no_fit, len(every))):
            out.append((name, f"{name}/{qid}", text))
    out += [("hand_en", f"hand_en/{i}", t) for i, t in enumerate(NO_FIT_EN)]
    out += [("hand_zh", f"hand_zh/{i}", t) for i, t in enumerate(NO_FIT_ZH)]
    digital = json.loads(TASKS.read_text(encoding="utf-8"))["no_fit"]
    out += [(f"digital_{lang}", f"digital_{lang}/{t}", t) for lang in ("en", "zh") for t in digital[lang]]
    return out


def collect(recipes: Any, args: argparse.Namespace, libraries: list[str]) -> dict[str, Any]:
    """The top ``K`` matches of every query in its own library and of every no-fit task in each
    library, with the evidence relevance rests on; and null cosines (dev no-fit tasks only)."""
    base = default_embedder(threads=args.threads)
    foreign = no_fit_queries(recipes, args)
    records: list[dict[str, Any]] = []
    null: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for lib in libraries:
        corpus, own = own_queries(lib, recipes)
        with tempfile.TemporaryDirectory(prefix="kenning-skills-relevance-") as tmp:
            home, project = Path(tmp) / "home", Path(tmp) / "project"
            project.mkdir()
            names = write_skills(home, corpus)
            kb = Kenning.open(home, embedder=base, project_dir=project)
            index = kb.skills.model_index()
            finder = kb.skills.finder
            ready = finder.prepare(index)
            dlangs = np.array(ready.languages)
            codes = np.array([LANGUAGES.index(x) for x in ready.languages], dtype=np.int8)
            finder.embedder = BatchedQueries(base, [q[2] for q in own] + [q[2] for q in foreign])
            console.log(f"{lib}: {len(ready.skills):,} skills; {len(own):,} own queries, {len(foreign):,} no-fit")
            asked = [(source, qid, text, {names[g] for g in gold if g in names}) for source, qid, text, gold in own]
            # the digital tasks (a flight, the weather) are what MetaTool's and Seal-Tools' tools do
            asked += [(source, qid, text, set()) for source, qid, text in foreign
                      if lib in EVERYDAY or not source.startswith("digital_")]
            for n, (source, qid, text, gold) in enumerate(asked, 1):
                qlang = language(text)
                matches = finder.search(index, text, K)
                # the cosines search rates by: above each skill's typical one (kenning.retrieval.typical)
                cos = ready.vectors @ finder.embedder.embed_query(text) - ready.typical[qlang] + TYPICAL
                measured = QueryNull.of(Scored(np.arange(len(cos)), cos, codes), qlang, search_module.SHIPPED).measured
                records.append({"lib": lib, "set": source, "qid": qid, "split": split_of(qid), "gold": sorted(gold),
                                "rows": len(ready.skills), "null": [list(m) for m in measured],
                                "matches": [match_row(m, qlang, gold) for m in matches if not m.always]})
                if not gold and split_of(qid) == "dev":
                    for dlang in np.unique(dlangs):
                        part = cos[dlangs == dlang].astype(np.float64)
                        row = null[f"{lib}\t{source}\t{qlang}\t{dlang}"]
                        row[0] += float(part.sum())
                        row[1] += float((part ** 2).sum())
                        row[2] += len(part)
                if n % 500 == 0:
                    console.log(f"{lib}: {n:,} of {len(asked):,}")
            kb.close()
    return {"records": records, "null": dict(null)}


def match_row(m: Any, qlang: str, gold: set[str]) -> dict[str, Any]:
    return {"name": m.skill.name, "cos": m.corrected, "raw": m.semantic, "share": m.share, "bm25": m.bm25,
            "qlang": qlang,
            "dlang": skill_language(m.skill), "gold": m.skill.name in gold}


# -- scoring ----------------------------------------------------------------------------------------

def size_of(h: dict[str, Any]) -> float:
    return float(np.log(min(max(h["rows"], srel.ROWS_FLOOR), srel.ROWS_CEILING)))


# the terms of the logistic, each the evidence of one match (``annotate``); constant B_<TERM> of
# kenning.skills.relevance
TERMS: dict[str, Callable[[dict[str, Any]], float]] = {
    "z": lambda h: h["z"],
    "shipped_z": lambda h: h["zs"],
    "share": lambda h: h["share"],
    "bm25": lambda h: h["bm25"],
    "agree": lambda h: max(h["z"], 0.0) * h["share"],
    "rows": size_of,
    "rows_z": lambda h: size_of(h) * h["z"],
    "rows_shipped_z": lambda h: size_of(h) * h["zs"],
    "rows_share": lambda h: size_of(h) * h["share"],
    "gap": lambda h: h["gap"],
}
FEATURES: dict[str, tuple[str, ...]] = {
    "shipped_z+share": ("shipped_z", "share"),
    "z+share": ("z", "share"),
    "z+shipped_z+share": ("z", "shipped_z", "share"),
    "z+shipped_z+share+bm25": ("z", "shipped_z", "share", "bm25"),
    "z+shipped_z+share+rows": ("z", "shipped_z", "share", "rows", "rows_z", "rows_shipped_z", "rows_share"),
    "z+shipped_z+agree+rows": ("z", "shipped_z", "agree", "rows", "rows_z", "rows_shipped_z"),
    "z+shipped_z+share+rows+gap": ("z", "shipped_z", "share", "rows", "rows_z", "rows_shipped_z", "rows_share", "gap"),
    "z+shipped_z+share+agree+rows": ("z", "shipped_z", "share", "agree", "rows", "rows_z", "rows_shipped_z",
                                     "rows_share"),
    "z+shipped_z+share+bm25+rows": ("z", "shipped_z", "share", "bm25", "rows", "rows_z", "rows_shipped_z",
                                    "rows_share"),
}


def annotate(records: list[dict[str, Any]]) -> None:
    """Each match's evidence on the current constants: its cosine standardised on the library's own
    null for its task blended with the shipped one (``retrieval.mixed.pooled``, ``srel.RELEVANCE_ROWS``
    pseudo-rows), on the shipped null alone, and the library's size."""
    for r in records:
        measured = tuple((int(n), median, spread) for n, median, spread in r["null"])
        for h in r["matches"]:
            nulls = pooled([srel.NULL[(h["qlang"], lang)] for lang in LANGUAGES], measured, srel.RELEVANCE_ROWS)
            mean, sd = nulls[LANGUAGES.index(h["dlang"])]
            h["z"] = (h["cos"] - mean) / sd
            h["zs"] = srel.skill_z(h["cos"], h["qlang"], h["dlang"])
            h["rows"] = r["rows"]
        top = max((h["z"] for h in r["matches"]), default=0.0)
        for h in r["matches"]:
            h["gap"] = h["z"] - top


def relevance_of(h: dict[str, Any]) -> float:
    return srel.skill_relevance(h["z"], h["zs"], h["share"], h["rows"])


def best(r: dict[str, Any], rate: Callable[[dict[str, Any]], float] | None = None) -> float:
    return max(((rate or relevance_of)(h) for h in r["matches"]), default=0.0)


def quality(r: dict[str, Any], floor: float) -> tuple[float, float]:
    """Hit@1 and R@5 of one own query, keeping only the matches at or above ``floor``."""
    kept = [h["gold"] for h in r["matches"] if relevance_of(h) >= floor]
    return float(bool(kept) and kept[0]), sum(kept[:5]) / len(r["gold"])


def own_summary(part: list[dict[str, Any]], floor: float) -> dict[str, float]:
    every = np.array([quality(r, 0.0) for r in part])
    kept = np.array([quality(r, floor) for r in part])
    return {"n": len(part), "hit1": 100 * every[:, 0].mean(), "hit1_floor": 100 * kept[:, 0].mean(),
            "r5": 100 * every[:, 1].mean(), "r5_floor": 100 * kept[:, 1].mean(),
            "empty": 100 * float(np.mean([best(r) < floor for r in part]))}


def own_of(records: list[dict[str, Any]], lib: str, split: str, source: str | None = None) -> list[dict[str, Any]]:
    """The own queries of ``lib`` in ``split`` (of set ``source``; default the library's own set)."""
    return [r for r in records if r["lib"] == lib and r["split"] == split and r["gold"]
            and (r["set"] == source if source else r["set"].split("_")[0] == lib.split("_")[0])]


def no_fit_of(records: list[dict[str, Any]], lib: str, split: str, source: str | None = None) -> list[dict[str, Any]]:
    return [r for r in records if r["lib"] == lib and r["set"] in NO_FIT_SETS and r["split"] == split
            and (source is None or r["set"] == source)]


def show(records: list[dict[str, Any]], floor: float, splits: tuple[str, ...]) -> None:
    table = Table(title=f"skill relevance: real queries against tasks no skill fits (floor {floor})")
    columns = ["queries of", "split", "queries", "AUROC", *[f"no skill: {s} %" for s in NO_FIT_SETS],
               "Hit@1 all", "Hit@1 floor", "R@5 all", "R@5 floor", "own empty %"]
    for col in columns:
        table.add_column(col, justify="left" if col in ("queries of", "split") else "right")
    for lib, source in OWN_SETS:
        for split in splits:
            own = own_of(records, lib, split, source)
            if not own:
                continue
            s = own_summary(own, floor)
            pos = [best(r) for r in own]
            neg = [best(r) for r in no_fit_of(records, lib, split)]
            empty = [100 * float(np.mean([best(r) < floor for r in no_fit_of(records, lib, split, src)] or [np.nan]))
                     for src in NO_FIT_SETS]
            table.add_row(source, split, f"{s['n']:,} + {len(neg):,}", f"{auroc(pos, neg):.3f}",
                          *[f"{e:.1f}" for e in empty], f"{s['hit1']:.1f}", f"{s['hit1_floor']:.1f}",
                          f"{s['r5']:.1f}", f"{s['r5_floor']:.1f}", f"{s['empty']:.1f}")
    console.print(table)


# -- fitting ----------------------------------------------------------------------------------------


def null_table(null: dict[str, list[float]]) -> dict[tuple[str, str], tuple[float, float]]:
    """Mean and sd per language pair: the mean of the sources' means (library x no-fit set) and the
    root mean of their variances. The spread *between* sources (short tasks score every skill higher
    than long questions do) is left out of the sd: counted in, it made the sd of English tasks twice
    that of Chinese ones and so weighed a Chinese cosine twice. A source whose tasks are not in the
    set's own language (MemDaily questions read as English: names, numbers) is shown, not used."""
    table = Table(title="null: cosine of a task with the skills that do not fit it")
    for col in ("library", "source", "task", "skill", "mean", "sd", "pairs", "used"):
        table.add_column(col)
    by_pair: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for key, (total, sq, n) in sorted(null.items()):
        lib, source, q, d = key.split("\t")
        mean, var = total / n, max(sq / n - (total / n) ** 2, 0.0)
        used = n >= MIN_NULL_PAIRS and q == NATIVE[source] and source not in NULL_LEFT_OUT
        table.add_row(lib, source, q, d, f"{mean:.4f}", f"{np.sqrt(var):.4f}", f"{int(n):,}", "yes" if used else "no")
        if used:
            by_pair[(q, d)].append((mean, var))
    console.print(table)
    return {pair: (round(float(np.mean([m for m, _ in v])), 4), round(float(np.sqrt(np.mean([x for _, x in v]))), 4))
            for pair, v in by_pair.items()}


def training_data(records: list[dict[str, Any]], terms: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dev matches: the gold skills of the own queries positive, every match of a no-fit task
    negative; the positives and the negatives of each library weigh the same. An own query's other
    matches are left out of the tool sets: they often hold several tools for one need (MetaTool's
    many search tools), and counting the near-fits as misfits pulled real fits under the floor. The
    hand-written tasks name every skill that fits them, so their other matches are misfits."""
    dev = [(r, h) for r in records if r["split"] == "dev" for h in r["matches"]
           if h["gold"] or not r["gold"] or r["lib"] in EVERYDAY]
    groups: dict[tuple[str, bool], int] = defaultdict(int)
    for r, h in dev:
        groups[group_of(r, h)] += 1
    x = np.array([[1.0, *(TERMS[t](h) for t in terms)] for _, h in dev])
    y = np.array([float(h["gold"]) for _, h in dev])
    w = np.array([1000.0 / groups[group_of(r, h)] for r, h in dev])
    return x, y, w


def group_of(r: dict[str, Any], h: dict[str, Any]) -> tuple[str, bool]:
    """Positives weigh the same per own set (the 20 Chinese dev tasks as much as MetaTool's 500
    English ones), negatives per no-fit set in each library: pooled, the 400 LoCoMo and MemDaily
    questions (long, personal, far from any skill) drowned the 30 short tasks, and a small
    library gave an English task no skill fits 0.5 at 1.6 spreads."""
    return (r["set"] if h["gold"] else f'{r["lib"]}/{r["set"]}', bool(h["gold"]))


def dev_auroc(records: list[dict[str, Any]], rate: Callable[[dict[str, Any]], float]) -> float:
    values = []
    for lib in LIBRARIES:
        pos = [best(r, rate) for r in own_of(records, lib, "dev")]
        neg = [best(r, rate) for r in no_fit_of(records, lib, "dev")]
        if pos and neg:
            values.append(auroc(pos, neg))
    return float(np.mean(values))


def choose_floor(records: list[dict[str, Any]], max_loss: float) -> float:
    """The highest floor at which dev Hit@1 and R@5 of every own query set lose at most ``max_loss``
    points, or one query of a set too small to measure finer (the hand-written sets: 14 to 25 queries)."""
    ok = 0.0
    for floor in FLOORS:
        over = False
        for lib, source in OWN_SETS:
            own = own_of(records, lib, "dev", source)
            if own:
                s = own_summary(own, float(floor))
                allowed = max(max_loss, 100 / len(own) + 1e-9)
                over |= max(s["hit1"] - s["hit1_floor"], s["r5"] - s["r5_floor"]) > allowed
        if over:
            break
        ok = float(floor)
    return ok


def fit(saved: dict[str, Any], args: argparse.Namespace) -> None:
    records = saved["records"]
    measured = null_table(saved["null"])
    srel.NULL.update(measured)
    console.print(f"NULL measured: {measured}")
    scores = Table(title="features of the logistic (fitted on dev): dev AUROC of the best match, mean of the libraries")
    for col in ("pseudo-rows", "features", "dev AUROC", "coefficients"):
        scores.add_column(col, justify="right" if col == "dev AUROC" else "left")
    fitted = {}
    for rows in sorted({srel.RELEVANCE_ROWS, *args.relevance_rows}):
        srel.RELEVANCE_ROWS = rows
        annotate(records)
        for label, terms in FEATURES.items():
            x, y, w = training_data(records, terms)
            beta = fit_logistic(x, y, w)
            fitted[(rows, label)] = beta

            def rate(h: dict[str, Any], beta: np.ndarray = beta, terms: tuple[str, ...] = terms) -> float:
                return float(1 / (1 + np.exp(-(beta @ np.array([1.0, *(TERMS[t](h) for t in terms)])))))

            scores.add_row(str(rows), label, f"{dev_auroc(records, rate):.4f}", " ".join(f"{b:.3f}" for b in beta))
    console.print(scores)
    srel.RELEVANCE_ROWS = args.relevance_rows[0]
    annotate(records)
    beta = fitted[(srel.RELEVANCE_ROWS, args.features)]
    values = dict(zip(["B0", *FEATURES[args.features]], (round(float(b), 3) for b in beta)))
    unused = [t for t in FEATURES[args.features] if not hasattr(srel, f"B_{t.upper()}")]
    assert not unused, f"kenning.skills.relevance has no constant for {unused}: add the term there first"
    for term in TERMS:
        if hasattr(srel, f"B_{term.upper()}"):
            setattr(srel, f"B_{term.upper()}", values.get(term, 0.0))
    srel.B0 = values["B0"]
    srel.DEFAULT_SKILL_MIN_RELEVANCE = choose_floor(records, args.max_loss)
    console.print(f"constants for src/kenning/skills/relevance.py ({args.features}, RELEVANCE_ROWS "
                  f"{srel.RELEVANCE_ROWS}):")
    console.print(f"NULL = {srel.NULL}")
    console.print("  ".join(f"B_{t.upper()} = {getattr(srel, f'B_{t.upper()}')}" for t in FEATURES[args.features])
                  + f"  B0 = {srel.B0}")
    console.print(f"DEFAULT_SKILL_MIN_RELEVANCE = {srel.DEFAULT_SKILL_MIN_RELEVANCE}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fit", action="store_true", help="measure the null and fit the calibration on dev")
    parser.add_argument("--features", default="z+shipped_z+share+rows", choices=sorted(FEATURES),
                        help="--fit: the features whose constants are printed (default: %(default)s)")
    parser.add_argument("--records", type=Path, default=RECORDS, help="matches collected by an earlier run "
                        "(read when present, written otherwise; default: %(default)s)")
    parser.add_argument("--recollect", action="store_true",
                        help="ask the queries of --libraries again (the other libraries' matches are kept)")
    parser.add_argument("--libraries", nargs="+", default=list(LIBRARIES), choices=LIBRARIES)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--no-typical", action="store_true",
                        help="collect with raw cosines, no skill's typical cosine taken off (kenning.retrieval.typical): "
                             "the ablation; give another --records")
    parser.add_argument("--relevance-rows", type=int, nargs="+", default=[srel.RELEVANCE_ROWS],
                        help="--fit: pseudo-rows of the shipped null tried (the first is kept; default: %(default)s)")
    parser.add_argument("--no-fit", type=int, default=400, help="LoCoMo and MemDaily questions sampled (each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="the embedder's threads (default: %(default)s)")
    parser.add_argument("--max-loss", type=float, default=2.0,
                        help="--fit: Hit@1 / R@5 points the floor may cost a library on dev (default: %(default)s)")
    args = parser.parse_args(argv)
    commit = git_commit()
    saved: dict[str, Any] = {"records": [], "null": {}}
    if args.records.exists():
        saved = json.loads(args.records.read_text())
    if args.no_typical:
        search_module.typical_cosines = lambda vectors, skills: {lang: np.full(len(skills), TYPICAL, dtype=np.float32)
                                                                 for lang in LANGUAGES}
    if args.recollect or not saved["records"]:
        fresh = collect(load_recipes(args.data), args, args.libraries)
        saved["records"] = [r for r in saved["records"] if r["lib"] not in args.libraries] + fresh["records"]
        saved["null"] = {k: v for k, v in saved["null"].items() if k.split("\t")[0] not in args.libraries}
        saved["null"] |= fresh["null"]
        saved["commit"] = commit
        write_json(args.records, saved)
    console.print(f"config: kenning @ {commit} (matches collected @ {saved.get('commit')}), k={K}, embedder "
                  f"threads {args.threads}, MetaTool {METATOOL_PER_TOOL} queries per tool, LoCoMo and MemDaily "
                  f"{args.no_fit} questions each (seed {args.seed}), {len(NO_FIT_EN)} + {len(NO_FIT_ZH)} hand-written")
    annotate(saved["records"])
    if args.fit:
        fit(saved, args)
    show(saved["records"], srel.DEFAULT_SKILL_MIN_RELEVANCE, ("dev", "test") if args.fit else ("test",))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
