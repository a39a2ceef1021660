"""What a text scores against requests it has nothing to do with: the part of a cosine that says nothing.

Some texts lie near every request. With the default embedder, the skill "web-test-zh: 用 Playwright
对本地网页做冒烟测试并截图" scores 0.80 against "change the baby's diaper" and ranked first for most
English tasks no skill of its library fits; a short, generic memory is near more questions than a
long, specific one. Ranked by raw cosine, such a text takes the first place from the one that answers,
and its cosine reads as evidence.

So a text's cosine with a query is measured against its *typical* cosine: its mean cosine with
``REFERENCE_TASKS`` of the query's language, everyday requests and questions of every kind written
for this once (none taken from a benchmark, none tuned on one), which is its dot product with the
mean of their vectors. Skill search ranks and rates ``cosine - typical + TYPICAL``: what the skill
scores for this task above what it scores for any, on the scale of a cosine. Measured with
``bench/skills_relevance.py`` (test split, Hit@1 of the whole ranking, raw cosines -> these):
Chinese tasks over the scanner's benign library (40 English and 10 Chinese skills) 56.0 -> 96.0,
English tasks there 88.0 -> 92.0, Chinese tasks over the public-style library 85.7 -> 90.5,
MetaTool's Chinese tasks 52.6 -> 57.9; MetaTool 58.1 -> 57.7, Seal-Tools 89.6 -> 89.1. Memory
recall does not use it yet.

The default embedder's vectors of the reference tasks ship in ``typical_tasks.npz`` (written by
``python -m kenning.retrieval.typical``): embedding them takes about a second on two cores, which
every fresh process would otherwise pay, a session hook among them. The file is used only when it was
made from these very tasks by an embedder of the same name whose vector of the first task still
matches; any other embedder embeds them once, as queries, and keeps them with the passage vectors
(``PassageVectors``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from ..embed import Embedder
from ..passages import PassageVectors
from ..text import Language

SHIPPED = Path(__file__).with_name("typical_tasks.npz")
SAME_VECTOR = 0.999  # the cosine of the first task's shipped vector with a fresh one (float16 keeps ~0.99999)

# where a rated cosine puts a text that scores for a query what it scores for any query
TYPICAL = 0.75

REFERENCE_TASKS: dict[Language, tuple[str, ...]] = {
    "en": (
        'fix the failing unit test', 'summarise this article in three sentences',
        'rename this variable everywhere in the project', "what did we decide in yesterday's meeting",
        'write an email to the landlord about the broken heater', 'set up continuous integration for this repository',
        'explain this error message', 'plan a birthday party for ten people', 'convert this JSON to YAML',
        'find the cheapest train to Berlin next Friday', 'add type hints to this module',
        'draft a cover letter for a data analyst job', 'why is this page loading slowly',
        'translate this paragraph into Spanish', 'make a chart of monthly expenses',
        'what is the difference between TCP and UDP', 'clean up my downloads folder',
        'schedule a call with the design team on Tuesday', 'write a short story about a lighthouse keeper',
        'check the spelling in this document', 'how do I undo the last commit', 'suggest a healthy dinner for tonight',
        'compare these two laptops', 'add a dark mode toggle to the settings page', 'list the open pull requests',
        'how long should I boil an egg', 'write unit tests for the payment module', 'create a logo for my bakery',
        'what are the side effects of ibuprofen', 'set a timer for twenty minutes', 'parse the dates in this log file',
        'explain quantum entanglement simply', 'migrate the database schema to the new version',
        'help me memorise Spanish verbs',
        'write a thank-you note to my teacher', 'refactor this function to be shorter',
        'what movies are playing this weekend', 'upload the photos to the shared drive', 'give me feedback on my essay',
        'optimise this SQL query', 'how do I get a passport renewed', 'build a REST endpoint for user signup',
        'what should I pack for a ski trip', 'record a short voice memo', 'write the meeting agenda for Monday',
        'scrape the prices from this web page', 'calculate the mortgage payment for a 300k loan',
        'send the invoice to the client', 'find duplicate rows in this table',
        'draw a diagram of the system architecture', "what's a good name for a podcast about gardening",
        "monitor the server's memory usage", 'write a haiku about the sea', 'set up a new laptop for development',
        'sort these files by date', 'explain how vaccines work', 'reply to the customer complaint politely',
        'update the dependencies of the project', 'track my daily water intake', 'make a packing list for moving house',
        'create a quiz about world capitals', 'encrypt this folder', 'design a workout plan for running a 10k',
        'review my résumé',
    ),
    "zh": (
        '修复这个失败的单元测试', '用三句话总结这篇文章', '在整个项目里重命名这个变量', '昨天开会我们决定了什么', '给房东写封邮件说暖气坏了', '给这个仓库配置持续集成', '解释一下这个报错',
        '策划一个十个人的生日聚会', '把这个 JSON 转成 YAML', '查一下下周五去柏林最便宜的火车', '给这个模块加上类型注解', '帮我写一封数据分析师的求职信', '这个页面为什么加载这么慢',
        '把这段话翻译成西班牙语', '画一张每月开支的图表', 'TCP 和 UDP 有什么区别', '清理一下我的下载文件夹', '周二和设计团队约个电话会', '写一个关于灯塔看守人的短篇故事', '检查这份文档的错别字',
        '怎么撤销上一次提交', '今晚吃点什么健康的', '比较一下这两台笔记本电脑', '给设置页面加一个深色模式开关', '列出还没合并的拉取请求', '鸡蛋要煮多久', '给支付模块写单元测试',
        '给我的面包店设计一个标志', '布洛芬有什么副作用', '定一个二十分钟的计时器', '解析这个日志文件里的日期', '简单解释一下量子纠缠', '把数据库结构迁移到新版本', '帮我背西班牙语动词',
        '给老师写一张感谢卡', '把这个函数重构得短一点', '这个周末有什么电影上映', '把照片上传到共享网盘', '帮我看看这篇作文', '优化这条 SQL 查询', '护照过期了怎么续办',
        '写一个用户注册的 REST 接口', '去滑雪要带些什么', '录一段语音备忘', '写一下周一会议的议程', '抓取这个网页上的价格', '算一下三十万贷款每月还多少', '把发票发给客户', '找出这张表里重复的行',
        '画一张系统架构图', '给一个讲园艺的播客起个名字', '监控服务器的内存占用', '写一首关于大海的俳句',
        '配置一台新的开发用笔记本', '按日期给这些文件排序', '解释一下疫苗的原理', '礼貌地回复客户的投诉',
        '更新项目的依赖', '记录我每天喝了多少水', '列一个搬家要带的东西清单', '出一套世界各国首都的小测验', '给这个文件夹加密', '制定一个跑十公里的训练计划', '帮我改改简历',
    ),
}


def reference_vectors(vectors: PassageVectors) -> dict[Language, np.ndarray]:
    """The reference tasks of each language as query vectors: shipped, or embedded once and kept."""
    return _shipped(vectors.embedder) or {language: vectors.of(tasks, queries=True)
                                          for language, tasks in REFERENCE_TASKS.items()}


_means: dict[str, dict[Language, np.ndarray]] = {}  # embedder name -> the mean reference vector per language


def mean_references(vectors: PassageVectors) -> dict[Language, np.ndarray]:
    """The mean of the reference vectors of each language, once a process per embedder."""
    name = vectors.embedder.name
    if name not in _means:
        _means[name] = {language: rows.mean(axis=0).astype(np.float32)
                        for language, rows in reference_vectors(vectors).items()}
    return _means[name]


def typical_cosines(vectors: PassageVectors, rows: np.ndarray) -> dict[Language, np.ndarray]:
    """Each row's (unit vectors) mean cosine with the reference tasks of each language."""
    return {language: rows @ mean for language, mean in mean_references(vectors).items()}


_loaded: dict[str, dict[Language, np.ndarray] | None] = {}  # embedder name -> its shipped vectors, once a process


def _shipped(embedder: Embedder) -> dict[Language, np.ndarray] | None:
    if embedder.name not in _loaded:
        _loaded[embedder.name] = _read_shipped(embedder)
    return _loaded[embedder.name]


def _read_shipped(embedder: Embedder) -> dict[Language, np.ndarray] | None:
    if not SHIPPED.exists():
        return None
    with np.load(SHIPPED, allow_pickle=False) as data:
        if str(data["embedder"]) != embedder.name or str(data["tasks"]) != _tasks_key():
            return None
        shipped: dict[Language, np.ndarray] = {language: data[language].astype(np.float32)
                                               for language in REFERENCE_TASKS}
    if shipped["en"].shape[1] != embedder.dim:
        return None
    fresh = embedder.embed_query(REFERENCE_TASKS["en"][0])
    return shipped if float(shipped["en"][0] @ fresh) >= SAME_VECTOR else None


def _tasks_key() -> str:
    return hashlib.sha256(json.dumps(REFERENCE_TASKS, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def write_shipped(embedder: Embedder, path: Path = SHIPPED) -> Path:
    """Embed the reference tasks with ``embedder`` and write them where ``reference_vectors`` looks."""
    arrays = {language: np.stack([embedder.embed_query(t) for t in tasks]).astype(np.float16)
              for language, tasks in REFERENCE_TASKS.items()}
    np.savez(path, embedder=np.array(embedder.name), tasks=np.array(_tasks_key()), **arrays)  # type: ignore[arg-type]
    return path


if __name__ == "__main__":  # python -m kenning.retrieval.typical: after the reference tasks change
    from ..embed import default_embedder

    print(write_shipped(default_embedder(threads=2)), file=sys.stderr)
