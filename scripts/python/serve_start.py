"""Server start per Inspect sample: spawn `limbo-analyze serve` for a
one-episode plan over stdio (the MCP client Inspect uses), initialize, list
the tools, finish and close (the episode recorded). Prints medians over 20.

    LIMBO_ANALYZE=/path/to/limbo-analyze python scripts/python/serve_start.py
"""
import asyncio, json, time, tempfile, os, statistics, subprocess
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
exe=os.environ.get("LIMBO_ANALYZE", "limbo-analyze")
plan=json.loads(subprocess.run([exe,"serve","--print-plan"],capture_output=True,text=True).stdout)["episodes"]
async def one(i, d):
    p=os.path.join(d,f"p{i}.json"); open(p,"w").write(json.dumps({"episodes":[plan[i]]}))
    t=time.perf_counter()
    async with stdio_client(StdioServerParameters(command=exe,args=["serve","--plan",p,"--ledger",os.path.join(d,f"l{i}.jsonl")],env={})) as (r,w):
        async with ClientSession(r,w) as s:
            await s.initialize(); t1=time.perf_counter()
            tools=await s.list_tools(); t2=time.perf_counter()
            await s.call_tool("finish",{"status":"failed","uncertainties":[]})
    t3=time.perf_counter()
    return t1-t, t2-t, t3-t
async def main():
    d=tempfile.mkdtemp()
    res=[await one(i,d) for i in range(20)]
    for k,name in enumerate(["spawn→initialized","→tools listed","→closed (recorded)"]):
        v=[r[k]*1000 for r in res]; print(f"{name}: median {statistics.median(v):.1f} ms, max {max(v):.1f} ms")
    print(len([f for f in os.listdir(d) if f.endswith('.jsonl')]), "ledgers")
asyncio.run(main())
