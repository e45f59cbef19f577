"""Benchmark behind the server's choice of framework: Starlette alone vs FastAPI.

Run by hand in an environment that has both (FastAPI is not a dependency of nomic-cards):

    python3 -m venv /work/benchenv-server
    /work/benchenv-server/bin/pip install starlette fastapi uvicorn
    /work/benchenv-server/bin/python scripts/bench_frameworks.py [--runs 5] [--duration 5]

For each framework: the import time of a minimal app (a fresh process, median of N) and the
requests per second of one uvicorn worker answering a player's hand of five cards as JSON
(FastAPI with a response model, as it would be used), driven by wrk on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

APPS = {
    "starlette": '''
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
CARDS = [{"number": i, "card": "Red Ad", "name": "Ace of Diamonds", "back": "Red"}
         for i in range(5)]
async def hand(request):
    return JSONResponse({"player": "ann", "as_of": 12, "cards": CARDS})
app = Starlette(routes=[Route("/hand", hand)])
''',
    "fastapi": '''
from fastapi import FastAPI
from pydantic import BaseModel
class Card(BaseModel):
    number: int
    card: str
    name: str
    back: str
class Hand(BaseModel):
    player: str
    as_of: int
    cards: list[Card]
CARDS = [{"number": i, "card": "Red Ad", "name": "Ace of Diamonds", "back": "Red"}
         for i in range(5)]
app = FastAPI()
@app.get("/hand", response_model=Hand)
async def hand():
    return {"player": "ann", "as_of": 12, "cards": CARDS}
''',
}


def port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--duration", type=int, default=5)
    a = ap.parse_args()
    rows = ["| framework | import, fresh process (median) | requests/s, 1 worker | p99 ms |",
            "|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as d:
        for name, code in APPS.items():
            (Path(d) / f"app_{name}.py").write_text(code)
            times = []
            for _ in range(a.runs):
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-c", f"import app_{name}"], cwd=d, check=True)
                times.append(time.perf_counter() - t0)
            p = port()
            server = subprocess.Popen([sys.executable, "-m", "uvicorn", f"app_{name}:app",
                                       "--port", str(p), "--log-level", "warning"], cwd=d)
            time.sleep(2)
            try:
                out = subprocess.run(["wrk", "-t2", "-c16", f"-d{a.duration}s", "--latency",
                                      f"http://127.0.0.1:{p}/hand"], capture_output=True,
                                     text=True, check=True).stdout
            finally:
                server.terminate()
                server.wait()
            rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
            p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
            assert rps and p99, out
            scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
            rows.append(f"| {name} | {statistics.median(times) * 1000:.0f} ms | "
                        f"{float(rps.group(1)):,.0f} | {float(p99.group(1)) * scale:.1f} |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
