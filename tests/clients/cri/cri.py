#!/usr/bin/python3
"""A small Kubernetes CRI (runtime.v1) client, in place of crictl.

cri.py --sock SOCKET --gen DIR [--timeout SECONDS] VERB [REQUEST_JSON]

VERB is an RPC of runtime.v1.RuntimeService or runtime.v1.ImageService as
declared in api.proto next to this file (Version, RunPodSandbox,
CreateContainer, ExecSync, ...).  REQUEST_JSON is the request message in
protobuf's JSON mapping (proto field names, enums by name or number; default
{}).  The reply is printed as one JSON object with proto field names and
default values included; ExecSync's stdout/stderr are printed as text.  A
gRPC error prints {"error": CODE, "details": ...} and exits 2.

The Python stubs are generated from api.proto into DIR with grpc_tools.protoc
the first time (they are not kept in the source tree).  Needs Debian's
python3-grpcio and python3-grpc-tools, hence /usr/bin/python3.
"""
import argparse, importlib, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def stubs(gen):
    os.makedirs(gen, exist_ok=True)
    src = os.path.join(HERE, "api.proto")
    out = os.path.join(gen, "api_pb2.py")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", HERE,
                        "--python_out=" + gen, "--grpc_python_out=" + gen, src], check=True)
    sys.path.insert(0, gen)
    return importlib.import_module("api_pb2"), importlib.import_module("api_pb2_grpc")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sock", required=True)
    ap.add_argument("--gen", required=True, help="directory for the generated stubs")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("verb")
    ap.add_argument("request", nargs="?", default="{}")
    a = ap.parse_args()
    pb, pbg = stubs(a.gen)
    import grpc
    from google.protobuf import json_format

    method = None
    for svc in pb.DESCRIPTOR.services_by_name.values():
        if a.verb in svc.methods_by_name:
            method, service = svc.methods_by_name[a.verb], svc.name
    if method is None:
        sys.exit("cri.py: unknown verb %r" % a.verb)
    req = json_format.Parse(a.request, getattr(pb, method.input_type.name)())
    chan = grpc.insecure_channel("unix://" + os.path.abspath(a.sock))
    stub = getattr(pbg, service + "Stub")(chan)
    try:
        rep = getattr(stub, a.verb)(req, timeout=a.timeout)
    except grpc.RpcError as e:
        print(json.dumps({"error": e.code().name, "details": e.details()}))
        sys.exit(2)
    d = json_format.MessageToDict(rep, preserving_proto_field_name=True,
                                  including_default_value_fields=True)
    if a.verb == "ExecSync":
        d["stdout"] = rep.stdout.decode("utf-8", "replace")
        d["stderr"] = rep.stderr.decode("utf-8", "replace")
    print(json.dumps(d, sort_keys=True))


main()
