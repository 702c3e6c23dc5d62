// querier_connect.js: a Connect client of querier.v1.QuerierService, as
// Grafana's Pyroscope data source is one, built at run time from .proto
// files (compiled by protoc into a descriptor set) with @bufbuild/protobuf
// v2 and @connectrpc/connect v2 (connect-node's transport, HTTP/1.1).
//
//   node querier_connect.js --modules DIR --desc FILE.desc
//       (--socket PATH | --url URL) [--ca PEM] [--token T] [--basic U:P]
//       --format binary|json  < CALLS
//
// CALLS holds one call a line, {"name" (the caller's), "method",
// "request" (proto3 JSON), "out" (optional: a file for the reply's binary
// form)}; each answer is one line of stdout: {"name", "method", "reply":
// proto3 JSON} or {"name", "method", "error": {"code": Connect's code
// ("invalid_argument"), "message"}}.
"use strict";

const fs = require("fs");
const { createRequire } = require("module");
const path = require("path");
const readline = require("readline");

function args(argv) {
	const a = {};
	for (let i = 2; i < argv.length; i += 2) {
		if (!argv[i].startsWith("--") || i + 1 >= argv.length)
			throw new Error("usage: see the head of querier_connect.js");
		a[argv[i].slice(2)] = argv[i + 1];
	}
	return a;
}

// Connect's code names as the protocol writes them: InvalidArgument is
// "invalid_argument".
function codeName(Code, c) {
	return String(Code[c]).replace(/([a-z])([A-Z])/g, "$1_$2")
	    .toLowerCase();
}

async function main() {
	const a = args(process.argv);
	// The packages as npm installed them under --modules, by their
	// names (their "exports" maps say which file each path is).
	const from = createRequire(path.resolve(a.modules) + "/");
	const pb = from("@bufbuild/protobuf");
	const wkt = from("@bufbuild/protobuf/wkt");
	const connect = from("@connectrpc/connect");
	const cnode = from("@connectrpc/connect-node");

	const set = pb.fromBinary(wkt.FileDescriptorSetSchema,
	    fs.readFileSync(a.desc));
	const registry = pb.createFileRegistry(set);
	const service = registry.getService("querier.v1.QuerierService");
	if (service === undefined)
		throw new Error("no querier.v1.QuerierService in " + a.desc);
	const nodeOptions = {};
	if (a.socket)
		nodeOptions.socketPath = a.socket;
	if (a.ca)
		nodeOptions.ca = fs.readFileSync(a.ca);
	const headers = {};
	if (a.token)
		headers.Authorization = "Bearer " + a.token;
	if (a.basic)
		headers.Authorization = "Basic " +
		    Buffer.from(a.basic).toString("base64");
	const transport = cnode.createConnectTransport({
		baseUrl: a.url || "http://localhost",
		httpVersion: "1.1",
		useBinaryFormat: a.format === "binary",
		nodeOptions: nodeOptions,
	});
	const client = connect.createClient(service, transport);
	const rl = readline.createInterface({ input: process.stdin });

	for await (const line of rl) {
		if (line.trim() === "")
			continue;
		const call = JSON.parse(line);
		const m = service.methods.find((x) => x.name === call.method);
		if (m === undefined)
			throw new Error("no method " + call.method);
		const req = pb.fromJson(m.input, call.request || {},
		    { registry: registry });
		const out = { name: call.name, method: call.method };
		try {
			const reply = await client[m.localName](req,
			    { headers: headers });
			out.reply = pb.toJson(m.output, reply,
			    { registry: registry });
			if (call.out)
				fs.writeFileSync(call.out,
				    pb.toBinary(m.output, reply));
		} catch (e) {
			if (!(e instanceof connect.ConnectError))
				throw e;
			out.error = { code: codeName(connect.Code, e.code),
			    message: e.rawMessage };
		}
		process.stdout.write(JSON.stringify(out) + "\n");
	}
}

main().catch((e) => {
	process.stderr.write("querier_connect: " + (e.stack || e) + "\n");
	process.exit(1);
});
