#!/usr/bin/env python3
"""Does a skill match's ``relevance`` tell a fitting skill from the best of nothing?

    python bench/skills_relevance.py --threads 1          # collect (kept in --records), print the test tables
    python bench/skills_relevance.py --threads 1 --fit    # measure the null, fit on dev, print the constants

Each tool set becomes a skill library (``skills_match.write_skills``: one real skill folder per
tool, searched by ``SkillSearch.search``, the engine of ``kb.skills.skills_search``). Asked of
each library:

* its own queries, where a skill fits (the gold tools): MetaTool (``METATOOL_PER_TOOL`` sampled
  queries per tool, and ``FIT_ZH``, 40 Chinese tasks written for MetaTool tools) and every
  Seal-Tools query;
* *no-fit* tasks, where no skill of the library fits: LoCoMo questions (English) and MemDaily
  questions (Chinese), personal-memory questions no tool answers, and ``NO_FIT``, everyday tasks
  written by hand in both languages (physical or personal acts no tool performs).

Printed per library and split: the AUROC of the best match's relevance (own queries against
no-fit tasks); the share of no-fit tasks answered with no skill at the floor
(``kenning.skills.relevance.DEFAULT_SKILL_MIN_RELEVANCE``), per source; Hit@1 and R@5 of the own
queries with every match and at the floor.

Splits: every query by a hash of its id (``relevance.split_of``'s rule). ``--fit`` measures the
null of the skill calibration (the cosine of each no-fit task with every skill of the library:
nothing there fits it) and fits the logistic on the dev split only, then picks the highest floor
at which dev Hit@1 and R@5 of every library drop by at most ``--max-loss`` points.
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
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_DATA, BatchedQueries, git_commit, load_recipes, write_json  # noqa: E402
from relevance import auroc, fit_logistic  # noqa: E402
from skills_match import write_skills  # noqa: E402

from kenning import Kenning  # noqa: E402
from kenning.embed import default_embedder  # noqa: E402
from kenning.skills import relevance as srel  # noqa: E402
from kenning.text import language  # noqa: E402

console = Console(width=170)
K = 10
LIBRARIES = ("metatool", "seal_tools")
METATOOL_PER_TOOL = 5
NO_FIT_SETS = ("locomo", "memdaily", "hand_en", "hand_zh")
# (library, own query set): the floor holds each to ``--max-loss`` points on dev
OWN_SETS = (("metatool", "metatool"), ("metatool", "metatool_zh"), ("seal_tools", "seal_tools"))
NATIVE = {"locomo": "en", "memdaily": "zh", "hand_en": "en", "hand_zh": "zh"}  # each no-fit set's language
MIN_NULL_PAIRS = 1000
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


def own_queries(name: str, recipes: Any) -> tuple[dict[str, str], list[tuple[str, str, str, set[str]]]]:
    """The library's tools and its (set, query id, text, gold tools); MetaTool's with ``FIT_ZH``."""
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
            dlangs = np.array([language(f"{s.name}: {s.description}") for s in ready.skills])
            finder.embedder = BatchedQueries(base, [q[2] for q in own] + [q[2] for q in foreign])
            console.log(f"{lib}: {len(ready.skills):,} skills; {len(own):,} own queries, {len(foreign):,} no-fit")
            asked = [(source, qid, text, {names[g] for g in gold if g in names}) for source, qid, text, gold in own]
            asked += [(source, qid, text, set()) for source, qid, text in foreign]
            for n, (source, qid, text, gold) in enumerate(asked, 1):
                qlang = language(text)
                matches = finder.search(index, text, K)
                records.append({"lib": lib, "set": source, "qid": qid, "split": split_of(qid), "gold": sorted(gold),
                                "matches": [match_row(m, qlang, gold) for m in matches if not m.always]})
                if not gold and split_of(qid) == "dev":
                    cos = ready.vectors @ finder.embedder.embed_query(text)
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
    return {"name": m.skill.name, "cos": m.semantic, "share": m.share, "bm25": m.bm25, "qlang": qlang,
            "dlang": language(f"{m.skill.name}: {m.skill.description}"), "gold": m.skill.name in gold}


# -- scoring ----------------------------------------------------------------------------------------

FEATURES: dict[str, Callable[[float, float, float], list[float]]] = {
    "z": lambda z, s, b: [z],
    "z+share": lambda z, s, b: [z, s],
    "z+share+agree": lambda z, s, b: [z, s, max(z, 0.0) * s],
    "z+share+bm25": lambda z, s, b: [z, s, b],
    "z+share+bm25+agree": lambda z, s, b: [z, s, b, max(z, 0.0) * s],
}


def z_of(h: dict[str, Any]) -> float:
    return srel.skill_z(h["cos"], h["qlang"], h["dlang"])


def relevance_of(h: dict[str, Any]) -> float:
    return srel.skill_relevance(h["cos"], h["share"], h["bm25"], h["qlang"], h["dlang"])


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
    return [r for r in records if r["lib"] == lib and r["set"] == (source or lib) and r["split"] == split
            and r["gold"]]


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
        used = n >= MIN_NULL_PAIRS and q == NATIVE[source]
        table.add_row(lib, source, q, d, f"{mean:.4f}", f"{np.sqrt(var):.4f}", f"{int(n):,}", "yes" if used else "no")
        if used:
            by_pair[(q, d)].append((mean, var))
    console.print(table)
    return {pair: (round(float(np.mean([m for m, _ in v])), 4), round(float(np.sqrt(np.mean([x for _, x in v]))), 4))
            for pair, v in by_pair.items()}


def training_data(records: list[dict[str, Any]], make: Callable[[float, float, float], list[float]]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dev matches: the gold skills of the own queries positive, every match of a no-fit task
    negative; the positives and the negatives of each library weigh the same. An own query's other
    matches are left out: a tool set often holds several tools for one need (MetaTool's many
    search tools), and counting the near-fits as misfits pulled real fits under the floor."""
    dev = [(r, h) for r in records if r["split"] == "dev" for h in r["matches"] if h["gold"] or not r["gold"]]
    groups: dict[tuple[str, bool], int] = defaultdict(int)
    for r, h in dev:
        groups[group_of(r, h)] += 1
    x = np.array([[1.0, *make(z_of(h), h["share"], h["bm25"])] for _, h in dev])
    y = np.array([float(h["gold"]) for _, h in dev])
    w = np.array([1000.0 / groups[group_of(r, h)] for r, h in dev])
    return x, y, w


def group_of(r: dict[str, Any], h: dict[str, Any]) -> tuple[str, bool]:
    """Positives weigh the same per own set (the 20 Chinese dev tasks as much as MetaTool's 500
    English ones), negatives per library."""
    return (r["set"] if h["gold"] else r["lib"], bool(h["gold"]))


def dev_auroc(records: list[dict[str, Any]], rate: Callable[[dict[str, Any]], float]) -> float:
    values = []
    for lib in LIBRARIES:
        pos = [best(r, rate) for r in own_of(records, lib, "dev")]
        neg = [best(r, rate) for r in no_fit_of(records, lib, "dev")]
        if pos and neg:
            values.append(auroc(pos, neg))
    return float(np.mean(values))


def choose_floor(records: list[dict[str, Any]], max_loss: float) -> float:
    """The highest floor at which dev Hit@1 and R@5 of every own query set lose at most ``max_loss`` points."""
    ok = 0.0
    for floor in FLOORS:
        lost = []
        for lib, source in OWN_SETS:
            own = own_of(records, lib, "dev", source)
            if own:
                s = own_summary(own, float(floor))
                lost += [s["hit1"] - s["hit1_floor"], s["r5"] - s["r5_floor"]]
        if max(lost) > max_loss:
            break
        ok = float(floor)
    return ok


def fit(saved: dict[str, Any], args: argparse.Namespace) -> None:
    records = saved["records"]
    measured = null_table(saved["null"])
    srel.NULL.update(measured)
    console.print(f"NULL measured: {measured}")
    scores = Table(title="features of the logistic (fitted on dev): dev AUROC of the best match, mean of the libraries")
    scores.add_column("features")
    scores.add_column("dev AUROC", justify="right")
    scores.add_column("coefficients")
    fitted = {}
    for label, make in FEATURES.items():
        x, y, w = training_data(records, make)
        beta = fit_logistic(x, y, w)
        fitted[label] = beta

        def rate(h: dict[str, Any], beta: np.ndarray = beta, make: Any = make) -> float:
            return float(1 / (1 + np.exp(-(beta @ np.array([1.0, *make(z_of(h), h["share"], h["bm25"])])))))

        scores.add_row(label, f"{dev_auroc(records, rate):.4f}", " ".join(f"{b:.3f}" for b in beta))
    console.print(scores)
    beta = fitted[args.features]
    terms = args.features.split("+")
    values = dict(zip(["B0", *terms], (round(float(b), 3) for b in beta)))
    srel.B0 = values["B0"]
    srel.B_Z, srel.B_SHARE = values.get("z", 0.0), values.get("share", 0.0)
    srel.B_BM25, srel.B_AGREE = values.get("bm25", 0.0), values.get("agree", 0.0)
    srel.DEFAULT_SKILL_MIN_RELEVANCE = choose_floor(records, args.max_loss)
    console.print(f"constants for src/kenning/skills/relevance.py ({args.features}):")
    console.print(f"NULL = {srel.NULL}")
    console.print(f"B0, B_Z, B_SHARE, B_BM25, B_AGREE = {srel.B0}, {srel.B_Z}, {srel.B_SHARE}, {srel.B_BM25}, "
                  f"{srel.B_AGREE}")
    console.print(f"DEFAULT_SKILL_MIN_RELEVANCE = {srel.DEFAULT_SKILL_MIN_RELEVANCE}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fit", action="store_true", help="measure the null and fit the calibration on dev")
    parser.add_argument("--features", default="z+share", choices=sorted(FEATURES),
                        help="--fit: the features whose constants are printed (default: %(default)s)")
    parser.add_argument("--records", type=Path, default=RECORDS, help="matches collected by an earlier run "
                        "(read when present, written otherwise; default: %(default)s)")
    parser.add_argument("--recollect", action="store_true",
                        help="ask the queries of --libraries again (the other libraries' matches are kept)")
    parser.add_argument("--libraries", nargs="+", default=list(LIBRARIES), choices=LIBRARIES)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
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
    if args.fit:
        fit(saved, args)
    show(saved["records"], srel.DEFAULT_SKILL_MIN_RELEVANCE, ("dev", "test") if args.fit else ("test",))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
