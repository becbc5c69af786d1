/*eslint-disable block-scoped-var, id-length, no-control-regex, no-magic-numbers, no-prototype-builtins, no-redeclare, no-shadow, no-var, sort-vars*/
"use strict";

var $protobuf = require("protobufjs/minimal");

// Common aliases
var $Reader = $protobuf.Reader, $Writer = $protobuf.Writer, $util = $protobuf.util;

// Exported root namespace
var $root = $protobuf.roots["default"] || ($protobuf.roots["default"] = {});

$root.etcdserverpb = (function() {

    /**
     * Namespace etcdserverpb.
     * @exports etcdserverpb
     * @namespace
     */
    var etcdserverpb = {};

    etcdserverpb.ResponseHeader = (function() {

        /**
         * Properties of a ResponseHeader.
         * @memberof etcdserverpb
         * @interface IResponseHeader
         * @property {number|Long|null} [cluster_id] ResponseHeader cluster_id
         * @property {number|Long|null} [member_id] ResponseHeader member_id
         * @property {number|Long|null} [revision] ResponseHeader revision
         * @property {number|Long|null} [raft_term] ResponseHeader raft_term
         */

        /**
         * Constructs a new ResponseHeader.
         * @memberof etcdserverpb
         * @classdesc Represents a ResponseHeader.
         * @implements IResponseHeader
         * @constructor
         * @param {etcdserverpb.IResponseHeader=} [properties] Properties to set
         */
        function ResponseHeader(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * ResponseHeader cluster_id.
         * @member {number|Long} cluster_id
         * @memberof etcdserverpb.ResponseHeader
         * @instance
         */
        ResponseHeader.prototype.cluster_id = $util.Long ? $util.Long.fromBits(0,0,true) : 0;

        /**
         * ResponseHeader member_id.
         * @member {number|Long} member_id
         * @memberof etcdserverpb.ResponseHeader
         * @instance
         */
        ResponseHeader.prototype.member_id = $util.Long ? $util.Long.fromBits(0,0,true) : 0;

        /**
         * ResponseHeader revision.
         * @member {number|Long} revision
         * @memberof etcdserverpb.ResponseHeader
         * @instance
         */
        ResponseHeader.prototype.revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * ResponseHeader raft_term.
         * @member {number|Long} raft_term
         * @memberof etcdserverpb.ResponseHeader
         * @instance
         */
        ResponseHeader.prototype.raft_term = $util.Long ? $util.Long.fromBits(0,0,true) : 0;

        /**
         * Encodes the specified ResponseHeader message. Does not implicitly {@link etcdserverpb.ResponseHeader.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.ResponseHeader
         * @static
         * @param {etcdserverpb.IResponseHeader} message ResponseHeader message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        ResponseHeader.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.cluster_id != null && Object.hasOwnProperty.call(message, "cluster_id"))
                writer.uint32(/* id 1, wireType 0 =*/8).uint64(message.cluster_id);
            if (message.member_id != null && Object.hasOwnProperty.call(message, "member_id"))
                writer.uint32(/* id 2, wireType 0 =*/16).uint64(message.member_id);
            if (message.revision != null && Object.hasOwnProperty.call(message, "revision"))
                writer.uint32(/* id 3, wireType 0 =*/24).int64(message.revision);
            if (message.raft_term != null && Object.hasOwnProperty.call(message, "raft_term"))
                writer.uint32(/* id 4, wireType 0 =*/32).uint64(message.raft_term);
            return writer;
        };

        /**
         * Decodes a ResponseHeader message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.ResponseHeader
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.ResponseHeader} ResponseHeader
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        ResponseHeader.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.ResponseHeader();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.cluster_id = reader.uint64();
                        break;
                    }
                case 2: {
                        message.member_id = reader.uint64();
                        break;
                    }
                case 3: {
                        message.revision = reader.int64();
                        break;
                    }
                case 4: {
                        message.raft_term = reader.uint64();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return ResponseHeader;
    })();

    etcdserverpb.RangeRequest = (function() {

        /**
         * Properties of a RangeRequest.
         * @memberof etcdserverpb
         * @interface IRangeRequest
         * @property {Uint8Array|null} [key] RangeRequest key
         * @property {Uint8Array|null} [range_end] RangeRequest range_end
         * @property {number|Long|null} [limit] RangeRequest limit
         * @property {number|Long|null} [revision] RangeRequest revision
         * @property {etcdserverpb.RangeRequest.SortOrder|null} [sort_order] RangeRequest sort_order
         * @property {etcdserverpb.RangeRequest.SortTarget|null} [sort_target] RangeRequest sort_target
         * @property {boolean|null} [serializable] RangeRequest serializable
         * @property {boolean|null} [keys_only] RangeRequest keys_only
         * @property {boolean|null} [count_only] RangeRequest count_only
         * @property {number|Long|null} [min_mod_revision] RangeRequest min_mod_revision
         * @property {number|Long|null} [max_mod_revision] RangeRequest max_mod_revision
         * @property {number|Long|null} [min_create_revision] RangeRequest min_create_revision
         * @property {number|Long|null} [max_create_revision] RangeRequest max_create_revision
         */

        /**
         * Constructs a new RangeRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a RangeRequest.
         * @implements IRangeRequest
         * @constructor
         * @param {etcdserverpb.IRangeRequest=} [properties] Properties to set
         */
        function RangeRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * RangeRequest key.
         * @member {Uint8Array} key
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.key = $util.newBuffer([]);

        /**
         * RangeRequest range_end.
         * @member {Uint8Array} range_end
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.range_end = $util.newBuffer([]);

        /**
         * RangeRequest limit.
         * @member {number|Long} limit
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.limit = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * RangeRequest revision.
         * @member {number|Long} revision
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * RangeRequest sort_order.
         * @member {etcdserverpb.RangeRequest.SortOrder} sort_order
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.sort_order = 0;

        /**
         * RangeRequest sort_target.
         * @member {etcdserverpb.RangeRequest.SortTarget} sort_target
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.sort_target = 0;

        /**
         * RangeRequest serializable.
         * @member {boolean} serializable
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.serializable = false;

        /**
         * RangeRequest keys_only.
         * @member {boolean} keys_only
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.keys_only = false;

        /**
         * RangeRequest count_only.
         * @member {boolean} count_only
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.count_only = false;

        /**
         * RangeRequest min_mod_revision.
         * @member {number|Long} min_mod_revision
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.min_mod_revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * RangeRequest max_mod_revision.
         * @member {number|Long} max_mod_revision
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.max_mod_revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * RangeRequest min_create_revision.
         * @member {number|Long} min_create_revision
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.min_create_revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * RangeRequest max_create_revision.
         * @member {number|Long} max_create_revision
         * @memberof etcdserverpb.RangeRequest
         * @instance
         */
        RangeRequest.prototype.max_create_revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Encodes the specified RangeRequest message. Does not implicitly {@link etcdserverpb.RangeRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.RangeRequest
         * @static
         * @param {etcdserverpb.IRangeRequest} message RangeRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        RangeRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.key != null && Object.hasOwnProperty.call(message, "key"))
                writer.uint32(/* id 1, wireType 2 =*/10).bytes(message.key);
            if (message.range_end != null && Object.hasOwnProperty.call(message, "range_end"))
                writer.uint32(/* id 2, wireType 2 =*/18).bytes(message.range_end);
            if (message.limit != null && Object.hasOwnProperty.call(message, "limit"))
                writer.uint32(/* id 3, wireType 0 =*/24).int64(message.limit);
            if (message.revision != null && Object.hasOwnProperty.call(message, "revision"))
                writer.uint32(/* id 4, wireType 0 =*/32).int64(message.revision);
            if (message.sort_order != null && Object.hasOwnProperty.call(message, "sort_order"))
                writer.uint32(/* id 5, wireType 0 =*/40).int32(message.sort_order);
            if (message.sort_target != null && Object.hasOwnProperty.call(message, "sort_target"))
                writer.uint32(/* id 6, wireType 0 =*/48).int32(message.sort_target);
            if (message.serializable != null && Object.hasOwnProperty.call(message, "serializable"))
                writer.uint32(/* id 7, wireType 0 =*/56).bool(message.serializable);
            if (message.keys_only != null && Object.hasOwnProperty.call(message, "keys_only"))
                writer.uint32(/* id 8, wireType 0 =*/64).bool(message.keys_only);
            if (message.count_only != null && Object.hasOwnProperty.call(message, "count_only"))
                writer.uint32(/* id 9, wireType 0 =*/72).bool(message.count_only);
            if (message.min_mod_revision != null && Object.hasOwnProperty.call(message, "min_mod_revision"))
                writer.uint32(/* id 10, wireType 0 =*/80).int64(message.min_mod_revision);
            if (message.max_mod_revision != null && Object.hasOwnProperty.call(message, "max_mod_revision"))
                writer.uint32(/* id 11, wireType 0 =*/88).int64(message.max_mod_revision);
            if (message.min_create_revision != null && Object.hasOwnProperty.call(message, "min_create_revision"))
                writer.uint32(/* id 12, wireType 0 =*/96).int64(message.min_create_revision);
            if (message.max_create_revision != null && Object.hasOwnProperty.call(message, "max_create_revision"))
                writer.uint32(/* id 13, wireType 0 =*/104).int64(message.max_create_revision);
            return writer;
        };

        /**
         * Decodes a RangeRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.RangeRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.RangeRequest} RangeRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        RangeRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.RangeRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.key = reader.bytes();
                        break;
                    }
                case 2: {
                        message.range_end = reader.bytes();
                        break;
                    }
                case 3: {
                        message.limit = reader.int64();
                        break;
                    }
                case 4: {
                        message.revision = reader.int64();
                        break;
                    }
                case 5: {
                        message.sort_order = reader.int32();
                        break;
                    }
                case 6: {
                        message.sort_target = reader.int32();
                        break;
                    }
                case 7: {
                        message.serializable = reader.bool();
                        break;
                    }
                case 8: {
                        message.keys_only = reader.bool();
                        break;
                    }
                case 9: {
                        message.count_only = reader.bool();
                        break;
                    }
                case 10: {
                        message.min_mod_revision = reader.int64();
                        break;
                    }
                case 11: {
                        message.max_mod_revision = reader.int64();
                        break;
                    }
                case 12: {
                        message.min_create_revision = reader.int64();
                        break;
                    }
                case 13: {
                        message.max_create_revision = reader.int64();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        /**
         * SortOrder enum.
         * @name etcdserverpb.RangeRequest.SortOrder
         * @enum {number}
         * @property {number} NONE=0 NONE value
         * @property {number} ASCEND=1 ASCEND value
         * @property {number} DESCEND=2 DESCEND value
         */
        RangeRequest.SortOrder = (function() {
            var valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "NONE"] = 0;
            values[valuesById[1] = "ASCEND"] = 1;
            values[valuesById[2] = "DESCEND"] = 2;
            return values;
        })();

        /**
         * SortTarget enum.
         * @name etcdserverpb.RangeRequest.SortTarget
         * @enum {number}
         * @property {number} KEY=0 KEY value
         * @property {number} VERSION=1 VERSION value
         * @property {number} CREATE=2 CREATE value
         * @property {number} MOD=3 MOD value
         * @property {number} VALUE=4 VALUE value
         */
        RangeRequest.SortTarget = (function() {
            var valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "KEY"] = 0;
            values[valuesById[1] = "VERSION"] = 1;
            values[valuesById[2] = "CREATE"] = 2;
            values[valuesById[3] = "MOD"] = 3;
            values[valuesById[4] = "VALUE"] = 4;
            return values;
        })();

        return RangeRequest;
    })();

    etcdserverpb.RangeResponse = (function() {

        /**
         * Properties of a RangeResponse.
         * @memberof etcdserverpb
         * @interface IRangeResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] RangeResponse header
         * @property {Array.<mvccpb.IKeyValue>|null} [kvs] RangeResponse kvs
         * @property {boolean|null} [more] RangeResponse more
         * @property {number|Long|null} [count] RangeResponse count
         */

        /**
         * Constructs a new RangeResponse.
         * @memberof etcdserverpb
         * @classdesc Represents a RangeResponse.
         * @implements IRangeResponse
         * @constructor
         * @param {etcdserverpb.IRangeResponse=} [properties] Properties to set
         */
        function RangeResponse(properties) {
            this.kvs = [];
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * RangeResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.RangeResponse
         * @instance
         */
        RangeResponse.prototype.header = null;

        /**
         * RangeResponse kvs.
         * @member {Array.<mvccpb.IKeyValue>} kvs
         * @memberof etcdserverpb.RangeResponse
         * @instance
         */
        RangeResponse.prototype.kvs = $util.emptyArray;

        /**
         * RangeResponse more.
         * @member {boolean} more
         * @memberof etcdserverpb.RangeResponse
         * @instance
         */
        RangeResponse.prototype.more = false;

        /**
         * RangeResponse count.
         * @member {number|Long} count
         * @memberof etcdserverpb.RangeResponse
         * @instance
         */
        RangeResponse.prototype.count = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Encodes the specified RangeResponse message. Does not implicitly {@link etcdserverpb.RangeResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.RangeResponse
         * @static
         * @param {etcdserverpb.IRangeResponse} message RangeResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        RangeResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.kvs != null && message.kvs.length)
                for (var i = 0; i < message.kvs.length; ++i)
                    $root.mvccpb.KeyValue.encode(message.kvs[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.more != null && Object.hasOwnProperty.call(message, "more"))
                writer.uint32(/* id 3, wireType 0 =*/24).bool(message.more);
            if (message.count != null && Object.hasOwnProperty.call(message, "count"))
                writer.uint32(/* id 4, wireType 0 =*/32).int64(message.count);
            return writer;
        };

        /**
         * Decodes a RangeResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.RangeResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.RangeResponse} RangeResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        RangeResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.RangeResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        if (!(message.kvs && message.kvs.length))
                            message.kvs = [];
                        message.kvs.push($root.mvccpb.KeyValue.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 3: {
                        message.more = reader.bool();
                        break;
                    }
                case 4: {
                        message.count = reader.int64();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return RangeResponse;
    })();

    etcdserverpb.PutRequest = (function() {

        /**
         * Properties of a PutRequest.
         * @memberof etcdserverpb
         * @interface IPutRequest
         * @property {Uint8Array|null} [key] PutRequest key
         * @property {Uint8Array|null} [value] PutRequest value
         * @property {number|Long|null} [lease] PutRequest lease
         * @property {boolean|null} [prev_kv] PutRequest prev_kv
         * @property {boolean|null} [ignore_value] PutRequest ignore_value
         * @property {boolean|null} [ignore_lease] PutRequest ignore_lease
         */

        /**
         * Constructs a new PutRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a PutRequest.
         * @implements IPutRequest
         * @constructor
         * @param {etcdserverpb.IPutRequest=} [properties] Properties to set
         */
        function PutRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * PutRequest key.
         * @member {Uint8Array} key
         * @memberof etcdserverpb.PutRequest
         * @instance
         */
        PutRequest.prototype.key = $util.newBuffer([]);

        /**
         * PutRequest value.
         * @member {Uint8Array} value
         * @memberof etcdserverpb.PutRequest
         * @instance
         */
        PutRequest.prototype.value = $util.newBuffer([]);

        /**
         * PutRequest lease.
         * @member {number|Long} lease
         * @memberof etcdserverpb.PutRequest
         * @instance
         */
        PutRequest.prototype.lease = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * PutRequest prev_kv.
         * @member {boolean} prev_kv
         * @memberof etcdserverpb.PutRequest
         * @instance
         */
        PutRequest.prototype.prev_kv = false;

        /**
         * PutRequest ignore_value.
         * @member {boolean} ignore_value
         * @memberof etcdserverpb.PutRequest
         * @instance
         */
        PutRequest.prototype.ignore_value = false;

        /**
         * PutRequest ignore_lease.
         * @member {boolean} ignore_lease
         * @memberof etcdserverpb.PutRequest
         * @instance
         */
        PutRequest.prototype.ignore_lease = false;

        /**
         * Encodes the specified PutRequest message. Does not implicitly {@link etcdserverpb.PutRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.PutRequest
         * @static
         * @param {etcdserverpb.IPutRequest} message PutRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        PutRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.key != null && Object.hasOwnProperty.call(message, "key"))
                writer.uint32(/* id 1, wireType 2 =*/10).bytes(message.key);
            if (message.value != null && Object.hasOwnProperty.call(message, "value"))
                writer.uint32(/* id 2, wireType 2 =*/18).bytes(message.value);
            if (message.lease != null && Object.hasOwnProperty.call(message, "lease"))
                writer.uint32(/* id 3, wireType 0 =*/24).int64(message.lease);
            if (message.prev_kv != null && Object.hasOwnProperty.call(message, "prev_kv"))
                writer.uint32(/* id 4, wireType 0 =*/32).bool(message.prev_kv);
            if (message.ignore_value != null && Object.hasOwnProperty.call(message, "ignore_value"))
                writer.uint32(/* id 5, wireType 0 =*/40).bool(message.ignore_value);
            if (message.ignore_lease != null && Object.hasOwnProperty.call(message, "ignore_lease"))
                writer.uint32(/* id 6, wireType 0 =*/48).bool(message.ignore_lease);
            return writer;
        };

        /**
         * Decodes a PutRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.PutRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.PutRequest} PutRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        PutRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.PutRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.key = reader.bytes();
                        break;
                    }
                case 2: {
                        message.value = reader.bytes();
                        break;
                    }
                case 3: {
                        message.lease = reader.int64();
                        break;
                    }
                case 4: {
                        message.prev_kv = reader.bool();
                        break;
                    }
                case 5: {
                        message.ignore_value = reader.bool();
                        break;
                    }
                case 6: {
                        message.ignore_lease = reader.bool();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return PutRequest;
    })();

    etcdserverpb.PutResponse = (function() {

        /**
         * Properties of a PutResponse.
         * @memberof etcdserverpb
         * @interface IPutResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] PutResponse header
         * @property {mvccpb.IKeyValue|null} [prev_kv] PutResponse prev_kv
         */

        /**
         * Constructs a new PutResponse.
         * @memberof etcdserverpb
         * @classdesc Represents a PutResponse.
         * @implements IPutResponse
         * @constructor
         * @param {etcdserverpb.IPutResponse=} [properties] Properties to set
         */
        function PutResponse(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * PutResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.PutResponse
         * @instance
         */
        PutResponse.prototype.header = null;

        /**
         * PutResponse prev_kv.
         * @member {mvccpb.IKeyValue|null|undefined} prev_kv
         * @memberof etcdserverpb.PutResponse
         * @instance
         */
        PutResponse.prototype.prev_kv = null;

        /**
         * Encodes the specified PutResponse message. Does not implicitly {@link etcdserverpb.PutResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.PutResponse
         * @static
         * @param {etcdserverpb.IPutResponse} message PutResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        PutResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.prev_kv != null && Object.hasOwnProperty.call(message, "prev_kv"))
                $root.mvccpb.KeyValue.encode(message.prev_kv, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a PutResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.PutResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.PutResponse} PutResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        PutResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.PutResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.prev_kv = $root.mvccpb.KeyValue.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return PutResponse;
    })();

    etcdserverpb.DeleteRangeRequest = (function() {

        /**
         * Properties of a DeleteRangeRequest.
         * @memberof etcdserverpb
         * @interface IDeleteRangeRequest
         * @property {Uint8Array|null} [key] DeleteRangeRequest key
         * @property {Uint8Array|null} [range_end] DeleteRangeRequest range_end
         * @property {boolean|null} [prev_kv] DeleteRangeRequest prev_kv
         */

        /**
         * Constructs a new DeleteRangeRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a DeleteRangeRequest.
         * @implements IDeleteRangeRequest
         * @constructor
         * @param {etcdserverpb.IDeleteRangeRequest=} [properties] Properties to set
         */
        function DeleteRangeRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * DeleteRangeRequest key.
         * @member {Uint8Array} key
         * @memberof etcdserverpb.DeleteRangeRequest
         * @instance
         */
        DeleteRangeRequest.prototype.key = $util.newBuffer([]);

        /**
         * DeleteRangeRequest range_end.
         * @member {Uint8Array} range_end
         * @memberof etcdserverpb.DeleteRangeRequest
         * @instance
         */
        DeleteRangeRequest.prototype.range_end = $util.newBuffer([]);

        /**
         * DeleteRangeRequest prev_kv.
         * @member {boolean} prev_kv
         * @memberof etcdserverpb.DeleteRangeRequest
         * @instance
         */
        DeleteRangeRequest.prototype.prev_kv = false;

        /**
         * Encodes the specified DeleteRangeRequest message. Does not implicitly {@link etcdserverpb.DeleteRangeRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.DeleteRangeRequest
         * @static
         * @param {etcdserverpb.IDeleteRangeRequest} message DeleteRangeRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        DeleteRangeRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.key != null && Object.hasOwnProperty.call(message, "key"))
                writer.uint32(/* id 1, wireType 2 =*/10).bytes(message.key);
            if (message.range_end != null && Object.hasOwnProperty.call(message, "range_end"))
                writer.uint32(/* id 2, wireType 2 =*/18).bytes(message.range_end);
            if (message.prev_kv != null && Object.hasOwnProperty.call(message, "prev_kv"))
                writer.uint32(/* id 3, wireType 0 =*/24).bool(message.prev_kv);
            return writer;
        };

        /**
         * Decodes a DeleteRangeRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.DeleteRangeRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.DeleteRangeRequest} DeleteRangeRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        DeleteRangeRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.DeleteRangeRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.key = reader.bytes();
                        break;
                    }
                case 2: {
                        message.range_end = reader.bytes();
                        break;
                    }
                case 3: {
                        message.prev_kv = reader.bool();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return DeleteRangeRequest;
    })();

    etcdserverpb.DeleteRangeResponse = (function() {

        /**
         * Properties of a DeleteRangeResponse.
         * @memberof etcdserverpb
         * @interface IDeleteRangeResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] DeleteRangeResponse header
         * @property {number|Long|null} [deleted] DeleteRangeResponse deleted
         * @property {Array.<mvccpb.IKeyValue>|null} [prev_kvs] DeleteRangeResponse prev_kvs
         */

        /**
         * Constructs a new DeleteRangeResponse.
         * @memberof etcdserverpb
         * @classdesc Represents a DeleteRangeResponse.
         * @implements IDeleteRangeResponse
         * @constructor
         * @param {etcdserverpb.IDeleteRangeResponse=} [properties] Properties to set
         */
        function DeleteRangeResponse(properties) {
            this.prev_kvs = [];
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * DeleteRangeResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.DeleteRangeResponse
         * @instance
         */
        DeleteRangeResponse.prototype.header = null;

        /**
         * DeleteRangeResponse deleted.
         * @member {number|Long} deleted
         * @memberof etcdserverpb.DeleteRangeResponse
         * @instance
         */
        DeleteRangeResponse.prototype.deleted = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * DeleteRangeResponse prev_kvs.
         * @member {Array.<mvccpb.IKeyValue>} prev_kvs
         * @memberof etcdserverpb.DeleteRangeResponse
         * @instance
         */
        DeleteRangeResponse.prototype.prev_kvs = $util.emptyArray;

        /**
         * Encodes the specified DeleteRangeResponse message. Does not implicitly {@link etcdserverpb.DeleteRangeResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.DeleteRangeResponse
         * @static
         * @param {etcdserverpb.IDeleteRangeResponse} message DeleteRangeResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        DeleteRangeResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.deleted != null && Object.hasOwnProperty.call(message, "deleted"))
                writer.uint32(/* id 2, wireType 0 =*/16).int64(message.deleted);
            if (message.prev_kvs != null && message.prev_kvs.length)
                for (var i = 0; i < message.prev_kvs.length; ++i)
                    $root.mvccpb.KeyValue.encode(message.prev_kvs[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a DeleteRangeResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.DeleteRangeResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.DeleteRangeResponse} DeleteRangeResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        DeleteRangeResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.DeleteRangeResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.deleted = reader.int64();
                        break;
                    }
                case 3: {
                        if (!(message.prev_kvs && message.prev_kvs.length))
                            message.prev_kvs = [];
                        message.prev_kvs.push($root.mvccpb.KeyValue.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return DeleteRangeResponse;
    })();

    etcdserverpb.RequestOp = (function() {

        /**
         * Properties of a RequestOp.
         * @memberof etcdserverpb
         * @interface IRequestOp
         * @property {etcdserverpb.IRangeRequest|null} [request_range] RequestOp request_range
         * @property {etcdserverpb.IPutRequest|null} [request_put] RequestOp request_put
         * @property {etcdserverpb.IDeleteRangeRequest|null} [request_delete_range] RequestOp request_delete_range
         * @property {etcdserverpb.ITxnRequest|null} [request_txn] RequestOp request_txn
         */

        /**
         * Constructs a new RequestOp.
         * @memberof etcdserverpb
         * @classdesc Represents a RequestOp.
         * @implements IRequestOp
         * @constructor
         * @param {etcdserverpb.IRequestOp=} [properties] Properties to set
         */
        function RequestOp(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * RequestOp request_range.
         * @member {etcdserverpb.IRangeRequest|null|undefined} request_range
         * @memberof etcdserverpb.RequestOp
         * @instance
         */
        RequestOp.prototype.request_range = null;

        /**
         * RequestOp request_put.
         * @member {etcdserverpb.IPutRequest|null|undefined} request_put
         * @memberof etcdserverpb.RequestOp
         * @instance
         */
        RequestOp.prototype.request_put = null;

        /**
         * RequestOp request_delete_range.
         * @member {etcdserverpb.IDeleteRangeRequest|null|undefined} request_delete_range
         * @memberof etcdserverpb.RequestOp
         * @instance
         */
        RequestOp.prototype.request_delete_range = null;

        /**
         * RequestOp request_txn.
         * @member {etcdserverpb.ITxnRequest|null|undefined} request_txn
         * @memberof etcdserverpb.RequestOp
         * @instance
         */
        RequestOp.prototype.request_txn = null;

        // OneOf field names bound to virtual getters and setters
        var $oneOfFields;

        /**
         * RequestOp request.
         * @member {"request_range"|"request_put"|"request_delete_range"|"request_txn"|undefined} request
         * @memberof etcdserverpb.RequestOp
         * @instance
         */
        Object.defineProperty(RequestOp.prototype, "request", {
            get: $util.oneOfGetter($oneOfFields = ["request_range", "request_put", "request_delete_range", "request_txn"]),
            set: $util.oneOfSetter($oneOfFields)
        });

        /**
         * Encodes the specified RequestOp message. Does not implicitly {@link etcdserverpb.RequestOp.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.RequestOp
         * @static
         * @param {etcdserverpb.IRequestOp} message RequestOp message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        RequestOp.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.request_range != null && Object.hasOwnProperty.call(message, "request_range"))
                $root.etcdserverpb.RangeRequest.encode(message.request_range, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.request_put != null && Object.hasOwnProperty.call(message, "request_put"))
                $root.etcdserverpb.PutRequest.encode(message.request_put, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.request_delete_range != null && Object.hasOwnProperty.call(message, "request_delete_range"))
                $root.etcdserverpb.DeleteRangeRequest.encode(message.request_delete_range, writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            if (message.request_txn != null && Object.hasOwnProperty.call(message, "request_txn"))
                $root.etcdserverpb.TxnRequest.encode(message.request_txn, writer.uint32(/* id 4, wireType 2 =*/34).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a RequestOp message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.RequestOp
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.RequestOp} RequestOp
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        RequestOp.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.RequestOp();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.request_range = $root.etcdserverpb.RangeRequest.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.request_put = $root.etcdserverpb.PutRequest.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 3: {
                        message.request_delete_range = $root.etcdserverpb.DeleteRangeRequest.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 4: {
                        message.request_txn = $root.etcdserverpb.TxnRequest.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return RequestOp;
    })();

    etcdserverpb.ResponseOp = (function() {

        /**
         * Properties of a ResponseOp.
         * @memberof etcdserverpb
         * @interface IResponseOp
         * @property {etcdserverpb.IRangeResponse|null} [response_range] ResponseOp response_range
         * @property {etcdserverpb.IPutResponse|null} [response_put] ResponseOp response_put
         * @property {etcdserverpb.IDeleteRangeResponse|null} [response_delete_range] ResponseOp response_delete_range
         * @property {etcdserverpb.ITxnResponse|null} [response_txn] ResponseOp response_txn
         */

        /**
         * Constructs a new ResponseOp.
         * @memberof etcdserverpb
         * @classdesc Represents a ResponseOp.
         * @implements IResponseOp
         * @constructor
         * @param {etcdserverpb.IResponseOp=} [properties] Properties to set
         */
        function ResponseOp(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * ResponseOp response_range.
         * @member {etcdserverpb.IRangeResponse|null|undefined} response_range
         * @memberof etcdserverpb.ResponseOp
         * @instance
         */
        ResponseOp.prototype.response_range = null;

        /**
         * ResponseOp response_put.
         * @member {etcdserverpb.IPutResponse|null|undefined} response_put
         * @memberof etcdserverpb.ResponseOp
         * @instance
         */
        ResponseOp.prototype.response_put = null;

        /**
         * ResponseOp response_delete_range.
         * @member {etcdserverpb.IDeleteRangeResponse|null|undefined} response_delete_range
         * @memberof etcdserverpb.ResponseOp
         * @instance
         */
        ResponseOp.prototype.response_delete_range = null;

        /**
         * ResponseOp response_txn.
         * @member {etcdserverpb.ITxnResponse|null|undefined} response_txn
         * @memberof etcdserverpb.ResponseOp
         * @instance
         */
        ResponseOp.prototype.response_txn = null;

        // OneOf field names bound to virtual getters and setters
        var $oneOfFields;

        /**
         * ResponseOp response.
         * @member {"response_range"|"response_put"|"response_delete_range"|"response_txn"|undefined} response
         * @memberof etcdserverpb.ResponseOp
         * @instance
         */
        Object.defineProperty(ResponseOp.prototype, "response", {
            get: $util.oneOfGetter($oneOfFields = ["response_range", "response_put", "response_delete_range", "response_txn"]),
            set: $util.oneOfSetter($oneOfFields)
        });

        /**
         * Encodes the specified ResponseOp message. Does not implicitly {@link etcdserverpb.ResponseOp.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.ResponseOp
         * @static
         * @param {etcdserverpb.IResponseOp} message ResponseOp message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        ResponseOp.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.response_range != null && Object.hasOwnProperty.call(message, "response_range"))
                $root.etcdserverpb.RangeResponse.encode(message.response_range, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.response_put != null && Object.hasOwnProperty.call(message, "response_put"))
                $root.etcdserverpb.PutResponse.encode(message.response_put, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.response_delete_range != null && Object.hasOwnProperty.call(message, "response_delete_range"))
                $root.etcdserverpb.DeleteRangeResponse.encode(message.response_delete_range, writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            if (message.response_txn != null && Object.hasOwnProperty.call(message, "response_txn"))
                $root.etcdserverpb.TxnResponse.encode(message.response_txn, writer.uint32(/* id 4, wireType 2 =*/34).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a ResponseOp message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.ResponseOp
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.ResponseOp} ResponseOp
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        ResponseOp.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.ResponseOp();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.response_range = $root.etcdserverpb.RangeResponse.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.response_put = $root.etcdserverpb.PutResponse.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 3: {
                        message.response_delete_range = $root.etcdserverpb.DeleteRangeResponse.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 4: {
                        message.response_txn = $root.etcdserverpb.TxnResponse.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return ResponseOp;
    })();

    etcdserverpb.Compare = (function() {

        /**
         * Properties of a Compare.
         * @memberof etcdserverpb
         * @interface ICompare
         * @property {etcdserverpb.Compare.CompareResult|null} [result] Compare result
         * @property {etcdserverpb.Compare.CompareTarget|null} [target] Compare target
         * @property {Uint8Array|null} [key] Compare key
         * @property {number|Long|null} [version] Compare version
         * @property {number|Long|null} [create_revision] Compare create_revision
         * @property {number|Long|null} [mod_revision] Compare mod_revision
         * @property {Uint8Array|null} [value] Compare value
         * @property {number|Long|null} [lease] Compare lease
         * @property {Uint8Array|null} [range_end] Compare range_end
         */

        /**
         * Constructs a new Compare.
         * @memberof etcdserverpb
         * @classdesc Represents a Compare.
         * @implements ICompare
         * @constructor
         * @param {etcdserverpb.ICompare=} [properties] Properties to set
         */
        function Compare(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * Compare result.
         * @member {etcdserverpb.Compare.CompareResult} result
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Compare.prototype.result = 0;

        /**
         * Compare target.
         * @member {etcdserverpb.Compare.CompareTarget} target
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Compare.prototype.target = 0;

        /**
         * Compare key.
         * @member {Uint8Array} key
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Compare.prototype.key = $util.newBuffer([]);

        /**
         * Compare version.
         * @member {number|Long|null|undefined} version
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Compare.prototype.version = null;

        /**
         * Compare create_revision.
         * @member {number|Long|null|undefined} create_revision
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Compare.prototype.create_revision = null;

        /**
         * Compare mod_revision.
         * @member {number|Long|null|undefined} mod_revision
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Compare.prototype.mod_revision = null;

        /**
         * Compare value.
         * @member {Uint8Array|null|undefined} value
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Compare.prototype.value = null;

        /**
         * Compare lease.
         * @member {number|Long|null|undefined} lease
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Compare.prototype.lease = null;

        /**
         * Compare range_end.
         * @member {Uint8Array} range_end
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Compare.prototype.range_end = $util.newBuffer([]);

        // OneOf field names bound to virtual getters and setters
        var $oneOfFields;

        /**
         * Compare target_union.
         * @member {"version"|"create_revision"|"mod_revision"|"value"|"lease"|undefined} target_union
         * @memberof etcdserverpb.Compare
         * @instance
         */
        Object.defineProperty(Compare.prototype, "target_union", {
            get: $util.oneOfGetter($oneOfFields = ["version", "create_revision", "mod_revision", "value", "lease"]),
            set: $util.oneOfSetter($oneOfFields)
        });

        /**
         * Encodes the specified Compare message. Does not implicitly {@link etcdserverpb.Compare.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.Compare
         * @static
         * @param {etcdserverpb.ICompare} message Compare message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        Compare.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.result != null && Object.hasOwnProperty.call(message, "result"))
                writer.uint32(/* id 1, wireType 0 =*/8).int32(message.result);
            if (message.target != null && Object.hasOwnProperty.call(message, "target"))
                writer.uint32(/* id 2, wireType 0 =*/16).int32(message.target);
            if (message.key != null && Object.hasOwnProperty.call(message, "key"))
                writer.uint32(/* id 3, wireType 2 =*/26).bytes(message.key);
            if (message.version != null && Object.hasOwnProperty.call(message, "version"))
                writer.uint32(/* id 4, wireType 0 =*/32).int64(message.version);
            if (message.create_revision != null && Object.hasOwnProperty.call(message, "create_revision"))
                writer.uint32(/* id 5, wireType 0 =*/40).int64(message.create_revision);
            if (message.mod_revision != null && Object.hasOwnProperty.call(message, "mod_revision"))
                writer.uint32(/* id 6, wireType 0 =*/48).int64(message.mod_revision);
            if (message.value != null && Object.hasOwnProperty.call(message, "value"))
                writer.uint32(/* id 7, wireType 2 =*/58).bytes(message.value);
            if (message.lease != null && Object.hasOwnProperty.call(message, "lease"))
                writer.uint32(/* id 8, wireType 0 =*/64).int64(message.lease);
            if (message.range_end != null && Object.hasOwnProperty.call(message, "range_end"))
                writer.uint32(/* id 64, wireType 2 =*/514).bytes(message.range_end);
            return writer;
        };

        /**
         * Decodes a Compare message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.Compare
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.Compare} Compare
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        Compare.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.Compare();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.result = reader.int32();
                        break;
                    }
                case 2: {
                        message.target = reader.int32();
                        break;
                    }
                case 3: {
                        message.key = reader.bytes();
                        break;
                    }
                case 4: {
                        message.version = reader.int64();
                        break;
                    }
                case 5: {
                        message.create_revision = reader.int64();
                        break;
                    }
                case 6: {
                        message.mod_revision = reader.int64();
                        break;
                    }
                case 7: {
                        message.value = reader.bytes();
                        break;
                    }
                case 8: {
                        message.lease = reader.int64();
                        break;
                    }
                case 64: {
                        message.range_end = reader.bytes();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        /**
         * CompareResult enum.
         * @name etcdserverpb.Compare.CompareResult
         * @enum {number}
         * @property {number} EQUAL=0 EQUAL value
         * @property {number} GREATER=1 GREATER value
         * @property {number} LESS=2 LESS value
         * @property {number} NOT_EQUAL=3 NOT_EQUAL value
         */
        Compare.CompareResult = (function() {
            var valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "EQUAL"] = 0;
            values[valuesById[1] = "GREATER"] = 1;
            values[valuesById[2] = "LESS"] = 2;
            values[valuesById[3] = "NOT_EQUAL"] = 3;
            return values;
        })();

        /**
         * CompareTarget enum.
         * @name etcdserverpb.Compare.CompareTarget
         * @enum {number}
         * @property {number} VERSION=0 VERSION value
         * @property {number} CREATE=1 CREATE value
         * @property {number} MOD=2 MOD value
         * @property {number} VALUE=3 VALUE value
         * @property {number} LEASE=4 LEASE value
         */
        Compare.CompareTarget = (function() {
            var valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "VERSION"] = 0;
            values[valuesById[1] = "CREATE"] = 1;
            values[valuesById[2] = "MOD"] = 2;
            values[valuesById[3] = "VALUE"] = 3;
            values[valuesById[4] = "LEASE"] = 4;
            return values;
        })();

        return Compare;
    })();

    etcdserverpb.TxnRequest = (function() {

        /**
         * Properties of a TxnRequest.
         * @memberof etcdserverpb
         * @interface ITxnRequest
         * @property {Array.<etcdserverpb.ICompare>|null} [compare] TxnRequest compare
         * @property {Array.<etcdserverpb.IRequestOp>|null} [success] TxnRequest success
         * @property {Array.<etcdserverpb.IRequestOp>|null} [failure] TxnRequest failure
         */

        /**
         * Constructs a new TxnRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a TxnRequest.
         * @implements ITxnRequest
         * @constructor
         * @param {etcdserverpb.ITxnRequest=} [properties] Properties to set
         */
        function TxnRequest(properties) {
            this.compare = [];
            this.success = [];
            this.failure = [];
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * TxnRequest compare.
         * @member {Array.<etcdserverpb.ICompare>} compare
         * @memberof etcdserverpb.TxnRequest
         * @instance
         */
        TxnRequest.prototype.compare = $util.emptyArray;

        /**
         * TxnRequest success.
         * @member {Array.<etcdserverpb.IRequestOp>} success
         * @memberof etcdserverpb.TxnRequest
         * @instance
         */
        TxnRequest.prototype.success = $util.emptyArray;

        /**
         * TxnRequest failure.
         * @member {Array.<etcdserverpb.IRequestOp>} failure
         * @memberof etcdserverpb.TxnRequest
         * @instance
         */
        TxnRequest.prototype.failure = $util.emptyArray;

        /**
         * Encodes the specified TxnRequest message. Does not implicitly {@link etcdserverpb.TxnRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.TxnRequest
         * @static
         * @param {etcdserverpb.ITxnRequest} message TxnRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        TxnRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.compare != null && message.compare.length)
                for (var i = 0; i < message.compare.length; ++i)
                    $root.etcdserverpb.Compare.encode(message.compare[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.success != null && message.success.length)
                for (var i = 0; i < message.success.length; ++i)
                    $root.etcdserverpb.RequestOp.encode(message.success[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.failure != null && message.failure.length)
                for (var i = 0; i < message.failure.length; ++i)
                    $root.etcdserverpb.RequestOp.encode(message.failure[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a TxnRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.TxnRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.TxnRequest} TxnRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        TxnRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.TxnRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        if (!(message.compare && message.compare.length))
                            message.compare = [];
                        message.compare.push($root.etcdserverpb.Compare.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 2: {
                        if (!(message.success && message.success.length))
                            message.success = [];
                        message.success.push($root.etcdserverpb.RequestOp.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                case 3: {
                        if (!(message.failure && message.failure.length))
                            message.failure = [];
                        message.failure.push($root.etcdserverpb.RequestOp.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return TxnRequest;
    })();

    etcdserverpb.TxnResponse = (function() {

        /**
         * Properties of a TxnResponse.
         * @memberof etcdserverpb
         * @interface ITxnResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] TxnResponse header
         * @property {boolean|null} [succeeded] TxnResponse succeeded
         * @property {Array.<etcdserverpb.IResponseOp>|null} [responses] TxnResponse responses
         */

        /**
         * Constructs a new TxnResponse.
         * @memberof etcdserverpb
         * @classdesc Represents a TxnResponse.
         * @implements ITxnResponse
         * @constructor
         * @param {etcdserverpb.ITxnResponse=} [properties] Properties to set
         */
        function TxnResponse(properties) {
            this.responses = [];
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * TxnResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.TxnResponse
         * @instance
         */
        TxnResponse.prototype.header = null;

        /**
         * TxnResponse succeeded.
         * @member {boolean} succeeded
         * @memberof etcdserverpb.TxnResponse
         * @instance
         */
        TxnResponse.prototype.succeeded = false;

        /**
         * TxnResponse responses.
         * @member {Array.<etcdserverpb.IResponseOp>} responses
         * @memberof etcdserverpb.TxnResponse
         * @instance
         */
        TxnResponse.prototype.responses = $util.emptyArray;

        /**
         * Encodes the specified TxnResponse message. Does not implicitly {@link etcdserverpb.TxnResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.TxnResponse
         * @static
         * @param {etcdserverpb.ITxnResponse} message TxnResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        TxnResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.succeeded != null && Object.hasOwnProperty.call(message, "succeeded"))
                writer.uint32(/* id 2, wireType 0 =*/16).bool(message.succeeded);
            if (message.responses != null && message.responses.length)
                for (var i = 0; i < message.responses.length; ++i)
                    $root.etcdserverpb.ResponseOp.encode(message.responses[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a TxnResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.TxnResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.TxnResponse} TxnResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        TxnResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.TxnResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.succeeded = reader.bool();
                        break;
                    }
                case 3: {
                        if (!(message.responses && message.responses.length))
                            message.responses = [];
                        message.responses.push($root.etcdserverpb.ResponseOp.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return TxnResponse;
    })();

    etcdserverpb.CompactionRequest = (function() {

        /**
         * Properties of a CompactionRequest.
         * @memberof etcdserverpb
         * @interface ICompactionRequest
         * @property {number|Long|null} [revision] CompactionRequest revision
         * @property {boolean|null} [physical] CompactionRequest physical
         */

        /**
         * Constructs a new CompactionRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a CompactionRequest.
         * @implements ICompactionRequest
         * @constructor
         * @param {etcdserverpb.ICompactionRequest=} [properties] Properties to set
         */
        function CompactionRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * CompactionRequest revision.
         * @member {number|Long} revision
         * @memberof etcdserverpb.CompactionRequest
         * @instance
         */
        CompactionRequest.prototype.revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * CompactionRequest physical.
         * @member {boolean} physical
         * @memberof etcdserverpb.CompactionRequest
         * @instance
         */
        CompactionRequest.prototype.physical = false;

        /**
         * Encodes the specified CompactionRequest message. Does not implicitly {@link etcdserverpb.CompactionRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.CompactionRequest
         * @static
         * @param {etcdserverpb.ICompactionRequest} message CompactionRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        CompactionRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.revision != null && Object.hasOwnProperty.call(message, "revision"))
                writer.uint32(/* id 1, wireType 0 =*/8).int64(message.revision);
            if (message.physical != null && Object.hasOwnProperty.call(message, "physical"))
                writer.uint32(/* id 2, wireType 0 =*/16).bool(message.physical);
            return writer;
        };

        /**
         * Decodes a CompactionRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.CompactionRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.CompactionRequest} CompactionRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        CompactionRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.CompactionRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.revision = reader.int64();
                        break;
                    }
                case 2: {
                        message.physical = reader.bool();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return CompactionRequest;
    })();

    etcdserverpb.CompactionResponse = (function() {

        /**
         * Properties of a CompactionResponse.
         * @memberof etcdserverpb
         * @interface ICompactionResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] CompactionResponse header
         */

        /**
         * Constructs a new CompactionResponse.
         * @memberof etcdserverpb
         * @classdesc Represents a CompactionResponse.
         * @implements ICompactionResponse
         * @constructor
         * @param {etcdserverpb.ICompactionResponse=} [properties] Properties to set
         */
        function CompactionResponse(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * CompactionResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.CompactionResponse
         * @instance
         */
        CompactionResponse.prototype.header = null;

        /**
         * Encodes the specified CompactionResponse message. Does not implicitly {@link etcdserverpb.CompactionResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.CompactionResponse
         * @static
         * @param {etcdserverpb.ICompactionResponse} message CompactionResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        CompactionResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a CompactionResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.CompactionResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.CompactionResponse} CompactionResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        CompactionResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.CompactionResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return CompactionResponse;
    })();

    etcdserverpb.WatchRequest = (function() {

        /**
         * Properties of a WatchRequest.
         * @memberof etcdserverpb
         * @interface IWatchRequest
         * @property {etcdserverpb.IWatchCreateRequest|null} [create_request] WatchRequest create_request
         * @property {etcdserverpb.IWatchCancelRequest|null} [cancel_request] WatchRequest cancel_request
         * @property {etcdserverpb.IWatchProgressRequest|null} [progress_request] WatchRequest progress_request
         */

        /**
         * Constructs a new WatchRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a WatchRequest.
         * @implements IWatchRequest
         * @constructor
         * @param {etcdserverpb.IWatchRequest=} [properties] Properties to set
         */
        function WatchRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * WatchRequest create_request.
         * @member {etcdserverpb.IWatchCreateRequest|null|undefined} create_request
         * @memberof etcdserverpb.WatchRequest
         * @instance
         */
        WatchRequest.prototype.create_request = null;

        /**
         * WatchRequest cancel_request.
         * @member {etcdserverpb.IWatchCancelRequest|null|undefined} cancel_request
         * @memberof etcdserverpb.WatchRequest
         * @instance
         */
        WatchRequest.prototype.cancel_request = null;

        /**
         * WatchRequest progress_request.
         * @member {etcdserverpb.IWatchProgressRequest|null|undefined} progress_request
         * @memberof etcdserverpb.WatchRequest
         * @instance
         */
        WatchRequest.prototype.progress_request = null;

        // OneOf field names bound to virtual getters and setters
        var $oneOfFields;

        /**
         * WatchRequest request_union.
         * @member {"create_request"|"cancel_request"|"progress_request"|undefined} request_union
         * @memberof etcdserverpb.WatchRequest
         * @instance
         */
        Object.defineProperty(WatchRequest.prototype, "request_union", {
            get: $util.oneOfGetter($oneOfFields = ["create_request", "cancel_request", "progress_request"]),
            set: $util.oneOfSetter($oneOfFields)
        });

        /**
         * Encodes the specified WatchRequest message. Does not implicitly {@link etcdserverpb.WatchRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.WatchRequest
         * @static
         * @param {etcdserverpb.IWatchRequest} message WatchRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        WatchRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.create_request != null && Object.hasOwnProperty.call(message, "create_request"))
                $root.etcdserverpb.WatchCreateRequest.encode(message.create_request, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.cancel_request != null && Object.hasOwnProperty.call(message, "cancel_request"))
                $root.etcdserverpb.WatchCancelRequest.encode(message.cancel_request, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.progress_request != null && Object.hasOwnProperty.call(message, "progress_request"))
                $root.etcdserverpb.WatchProgressRequest.encode(message.progress_request, writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a WatchRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.WatchRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.WatchRequest} WatchRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        WatchRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.WatchRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.create_request = $root.etcdserverpb.WatchCreateRequest.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.cancel_request = $root.etcdserverpb.WatchCancelRequest.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 3: {
                        message.progress_request = $root.etcdserverpb.WatchProgressRequest.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return WatchRequest;
    })();

    etcdserverpb.WatchCreateRequest = (function() {

        /**
         * Properties of a WatchCreateRequest.
         * @memberof etcdserverpb
         * @interface IWatchCreateRequest
         * @property {Uint8Array|null} [key] WatchCreateRequest key
         * @property {Uint8Array|null} [range_end] WatchCreateRequest range_end
         * @property {number|Long|null} [start_revision] WatchCreateRequest start_revision
         * @property {boolean|null} [progress_notify] WatchCreateRequest progress_notify
         * @property {Array.<etcdserverpb.WatchCreateRequest.FilterType>|null} [filters] WatchCreateRequest filters
         * @property {boolean|null} [prev_kv] WatchCreateRequest prev_kv
         * @property {number|Long|null} [watch_id] WatchCreateRequest watch_id
         * @property {boolean|null} [fragment] WatchCreateRequest fragment
         */

        /**
         * Constructs a new WatchCreateRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a WatchCreateRequest.
         * @implements IWatchCreateRequest
         * @constructor
         * @param {etcdserverpb.IWatchCreateRequest=} [properties] Properties to set
         */
        function WatchCreateRequest(properties) {
            this.filters = [];
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * WatchCreateRequest key.
         * @member {Uint8Array} key
         * @memberof etcdserverpb.WatchCreateRequest
         * @instance
         */
        WatchCreateRequest.prototype.key = $util.newBuffer([]);

        /**
         * WatchCreateRequest range_end.
         * @member {Uint8Array} range_end
         * @memberof etcdserverpb.WatchCreateRequest
         * @instance
         */
        WatchCreateRequest.prototype.range_end = $util.newBuffer([]);

        /**
         * WatchCreateRequest start_revision.
         * @member {number|Long} start_revision
         * @memberof etcdserverpb.WatchCreateRequest
         * @instance
         */
        WatchCreateRequest.prototype.start_revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * WatchCreateRequest progress_notify.
         * @member {boolean} progress_notify
         * @memberof etcdserverpb.WatchCreateRequest
         * @instance
         */
        WatchCreateRequest.prototype.progress_notify = false;

        /**
         * WatchCreateRequest filters.
         * @member {Array.<etcdserverpb.WatchCreateRequest.FilterType>} filters
         * @memberof etcdserverpb.WatchCreateRequest
         * @instance
         */
        WatchCreateRequest.prototype.filters = $util.emptyArray;

        /**
         * WatchCreateRequest prev_kv.
         * @member {boolean} prev_kv
         * @memberof etcdserverpb.WatchCreateRequest
         * @instance
         */
        WatchCreateRequest.prototype.prev_kv = false;

        /**
         * WatchCreateRequest watch_id.
         * @member {number|Long} watch_id
         * @memberof etcdserverpb.WatchCreateRequest
         * @instance
         */
        WatchCreateRequest.prototype.watch_id = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * WatchCreateRequest fragment.
         * @member {boolean} fragment
         * @memberof etcdserverpb.WatchCreateRequest
         * @instance
         */
        WatchCreateRequest.prototype.fragment = false;

        /**
         * Encodes the specified WatchCreateRequest message. Does not implicitly {@link etcdserverpb.WatchCreateRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.WatchCreateRequest
         * @static
         * @param {etcdserverpb.IWatchCreateRequest} message WatchCreateRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        WatchCreateRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.key != null && Object.hasOwnProperty.call(message, "key"))
                writer.uint32(/* id 1, wireType 2 =*/10).bytes(message.key);
            if (message.range_end != null && Object.hasOwnProperty.call(message, "range_end"))
                writer.uint32(/* id 2, wireType 2 =*/18).bytes(message.range_end);
            if (message.start_revision != null && Object.hasOwnProperty.call(message, "start_revision"))
                writer.uint32(/* id 3, wireType 0 =*/24).int64(message.start_revision);
            if (message.progress_notify != null && Object.hasOwnProperty.call(message, "progress_notify"))
                writer.uint32(/* id 4, wireType 0 =*/32).bool(message.progress_notify);
            if (message.filters != null && message.filters.length) {
                writer.uint32(/* id 5, wireType 2 =*/42).fork();
                for (var i = 0; i < message.filters.length; ++i)
                    writer.int32(message.filters[i]);
                writer.ldelim();
            }
            if (message.prev_kv != null && Object.hasOwnProperty.call(message, "prev_kv"))
                writer.uint32(/* id 6, wireType 0 =*/48).bool(message.prev_kv);
            if (message.watch_id != null && Object.hasOwnProperty.call(message, "watch_id"))
                writer.uint32(/* id 7, wireType 0 =*/56).int64(message.watch_id);
            if (message.fragment != null && Object.hasOwnProperty.call(message, "fragment"))
                writer.uint32(/* id 8, wireType 0 =*/64).bool(message.fragment);
            return writer;
        };

        /**
         * Decodes a WatchCreateRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.WatchCreateRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.WatchCreateRequest} WatchCreateRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        WatchCreateRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.WatchCreateRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.key = reader.bytes();
                        break;
                    }
                case 2: {
                        message.range_end = reader.bytes();
                        break;
                    }
                case 3: {
                        message.start_revision = reader.int64();
                        break;
                    }
                case 4: {
                        message.progress_notify = reader.bool();
                        break;
                    }
                case 5: {
                        if (!(message.filters && message.filters.length))
                            message.filters = [];
                        if ((tag & 7) === 2) {
                            var end2 = reader.uint32() + reader.pos;
                            if (end2 > reader.len)
                                throw RangeError("index out of range");
                            reader.len = end2;
                            while (reader.pos < end2)
                                message.filters.push(reader.int32());
                            if (reader.pos !== end2)
                                throw RangeError("index out of range");
                            reader.len = end;
                        } else
                            message.filters.push(reader.int32());
                        break;
                    }
                case 6: {
                        message.prev_kv = reader.bool();
                        break;
                    }
                case 7: {
                        message.watch_id = reader.int64();
                        break;
                    }
                case 8: {
                        message.fragment = reader.bool();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        /**
         * FilterType enum.
         * @name etcdserverpb.WatchCreateRequest.FilterType
         * @enum {number}
         * @property {number} NOPUT=0 NOPUT value
         * @property {number} NODELETE=1 NODELETE value
         */
        WatchCreateRequest.FilterType = (function() {
            var valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "NOPUT"] = 0;
            values[valuesById[1] = "NODELETE"] = 1;
            return values;
        })();

        return WatchCreateRequest;
    })();

    etcdserverpb.WatchCancelRequest = (function() {

        /**
         * Properties of a WatchCancelRequest.
         * @memberof etcdserverpb
         * @interface IWatchCancelRequest
         * @property {number|Long|null} [watch_id] WatchCancelRequest watch_id
         */

        /**
         * Constructs a new WatchCancelRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a WatchCancelRequest.
         * @implements IWatchCancelRequest
         * @constructor
         * @param {etcdserverpb.IWatchCancelRequest=} [properties] Properties to set
         */
        function WatchCancelRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * WatchCancelRequest watch_id.
         * @member {number|Long} watch_id
         * @memberof etcdserverpb.WatchCancelRequest
         * @instance
         */
        WatchCancelRequest.prototype.watch_id = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Encodes the specified WatchCancelRequest message. Does not implicitly {@link etcdserverpb.WatchCancelRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.WatchCancelRequest
         * @static
         * @param {etcdserverpb.IWatchCancelRequest} message WatchCancelRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        WatchCancelRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.watch_id != null && Object.hasOwnProperty.call(message, "watch_id"))
                writer.uint32(/* id 1, wireType 0 =*/8).int64(message.watch_id);
            return writer;
        };

        /**
         * Decodes a WatchCancelRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.WatchCancelRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.WatchCancelRequest} WatchCancelRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        WatchCancelRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.WatchCancelRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.watch_id = reader.int64();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return WatchCancelRequest;
    })();

    etcdserverpb.WatchProgressRequest = (function() {

        /**
         * Properties of a WatchProgressRequest.
         * @memberof etcdserverpb
         * @interface IWatchProgressRequest
         */

        /**
         * Constructs a new WatchProgressRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a WatchProgressRequest.
         * @implements IWatchProgressRequest
         * @constructor
         * @param {etcdserverpb.IWatchProgressRequest=} [properties] Properties to set
         */
        function WatchProgressRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * Encodes the specified WatchProgressRequest message. Does not implicitly {@link etcdserverpb.WatchProgressRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.WatchProgressRequest
         * @static
         * @param {etcdserverpb.IWatchProgressRequest} message WatchProgressRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        WatchProgressRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            return writer;
        };

        /**
         * Decodes a WatchProgressRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.WatchProgressRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.WatchProgressRequest} WatchProgressRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        WatchProgressRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.WatchProgressRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return WatchProgressRequest;
    })();

    etcdserverpb.WatchResponse = (function() {

        /**
         * Properties of a WatchResponse.
         * @memberof etcdserverpb
         * @interface IWatchResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] WatchResponse header
         * @property {number|Long|null} [watch_id] WatchResponse watch_id
         * @property {boolean|null} [created] WatchResponse created
         * @property {boolean|null} [canceled] WatchResponse canceled
         * @property {number|Long|null} [compact_revision] WatchResponse compact_revision
         * @property {string|null} [cancel_reason] WatchResponse cancel_reason
         * @property {boolean|null} [fragment] WatchResponse fragment
         * @property {Array.<mvccpb.IEvent>|null} [events] WatchResponse events
         */

        /**
         * Constructs a new WatchResponse.
         * @memberof etcdserverpb
         * @classdesc Represents a WatchResponse.
         * @implements IWatchResponse
         * @constructor
         * @param {etcdserverpb.IWatchResponse=} [properties] Properties to set
         */
        function WatchResponse(properties) {
            this.events = [];
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * WatchResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.WatchResponse
         * @instance
         */
        WatchResponse.prototype.header = null;

        /**
         * WatchResponse watch_id.
         * @member {number|Long} watch_id
         * @memberof etcdserverpb.WatchResponse
         * @instance
         */
        WatchResponse.prototype.watch_id = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * WatchResponse created.
         * @member {boolean} created
         * @memberof etcdserverpb.WatchResponse
         * @instance
         */
        WatchResponse.prototype.created = false;

        /**
         * WatchResponse canceled.
         * @member {boolean} canceled
         * @memberof etcdserverpb.WatchResponse
         * @instance
         */
        WatchResponse.prototype.canceled = false;

        /**
         * WatchResponse compact_revision.
         * @member {number|Long} compact_revision
         * @memberof etcdserverpb.WatchResponse
         * @instance
         */
        WatchResponse.prototype.compact_revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * WatchResponse cancel_reason.
         * @member {string} cancel_reason
         * @memberof etcdserverpb.WatchResponse
         * @instance
         */
        WatchResponse.prototype.cancel_reason = "";

        /**
         * WatchResponse fragment.
         * @member {boolean} fragment
         * @memberof etcdserverpb.WatchResponse
         * @instance
         */
        WatchResponse.prototype.fragment = false;

        /**
         * WatchResponse events.
         * @member {Array.<mvccpb.IEvent>} events
         * @memberof etcdserverpb.WatchResponse
         * @instance
         */
        WatchResponse.prototype.events = $util.emptyArray;

        /**
         * Encodes the specified WatchResponse message. Does not implicitly {@link etcdserverpb.WatchResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.WatchResponse
         * @static
         * @param {etcdserverpb.IWatchResponse} message WatchResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        WatchResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.watch_id != null && Object.hasOwnProperty.call(message, "watch_id"))
                writer.uint32(/* id 2, wireType 0 =*/16).int64(message.watch_id);
            if (message.created != null && Object.hasOwnProperty.call(message, "created"))
                writer.uint32(/* id 3, wireType 0 =*/24).bool(message.created);
            if (message.canceled != null && Object.hasOwnProperty.call(message, "canceled"))
                writer.uint32(/* id 4, wireType 0 =*/32).bool(message.canceled);
            if (message.compact_revision != null && Object.hasOwnProperty.call(message, "compact_revision"))
                writer.uint32(/* id 5, wireType 0 =*/40).int64(message.compact_revision);
            if (message.cancel_reason != null && Object.hasOwnProperty.call(message, "cancel_reason"))
                writer.uint32(/* id 6, wireType 2 =*/50).string(message.cancel_reason);
            if (message.fragment != null && Object.hasOwnProperty.call(message, "fragment"))
                writer.uint32(/* id 7, wireType 0 =*/56).bool(message.fragment);
            if (message.events != null && message.events.length)
                for (var i = 0; i < message.events.length; ++i)
                    $root.mvccpb.Event.encode(message.events[i], writer.uint32(/* id 11, wireType 2 =*/90).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a WatchResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.WatchResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.WatchResponse} WatchResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        WatchResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.WatchResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.watch_id = reader.int64();
                        break;
                    }
                case 3: {
                        message.created = reader.bool();
                        break;
                    }
                case 4: {
                        message.canceled = reader.bool();
                        break;
                    }
                case 5: {
                        message.compact_revision = reader.int64();
                        break;
                    }
                case 6: {
                        message.cancel_reason = reader.string();
                        break;
                    }
                case 7: {
                        message.fragment = reader.bool();
                        break;
                    }
                case 11: {
                        if (!(message.events && message.events.length))
                            message.events = [];
                        message.events.push($root.mvccpb.Event.decode(reader, reader.uint32(), undefined, long + 1));
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return WatchResponse;
    })();

    etcdserverpb.LeaseGrantRequest = (function() {

        /**
         * Properties of a LeaseGrantRequest.
         * @memberof etcdserverpb
         * @interface ILeaseGrantRequest
         * @property {number|Long|null} [TTL] LeaseGrantRequest TTL
         * @property {number|Long|null} [ID] LeaseGrantRequest ID
         */

        /**
         * Constructs a new LeaseGrantRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a LeaseGrantRequest.
         * @implements ILeaseGrantRequest
         * @constructor
         * @param {etcdserverpb.ILeaseGrantRequest=} [properties] Properties to set
         */
        function LeaseGrantRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * LeaseGrantRequest TTL.
         * @member {number|Long} TTL
         * @memberof etcdserverpb.LeaseGrantRequest
         * @instance
         */
        LeaseGrantRequest.prototype.TTL = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * LeaseGrantRequest ID.
         * @member {number|Long} ID
         * @memberof etcdserverpb.LeaseGrantRequest
         * @instance
         */
        LeaseGrantRequest.prototype.ID = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Encodes the specified LeaseGrantRequest message. Does not implicitly {@link etcdserverpb.LeaseGrantRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.LeaseGrantRequest
         * @static
         * @param {etcdserverpb.ILeaseGrantRequest} message LeaseGrantRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        LeaseGrantRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.TTL != null && Object.hasOwnProperty.call(message, "TTL"))
                writer.uint32(/* id 1, wireType 0 =*/8).int64(message.TTL);
            if (message.ID != null && Object.hasOwnProperty.call(message, "ID"))
                writer.uint32(/* id 2, wireType 0 =*/16).int64(message.ID);
            return writer;
        };

        /**
         * Decodes a LeaseGrantRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.LeaseGrantRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.LeaseGrantRequest} LeaseGrantRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        LeaseGrantRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.LeaseGrantRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.TTL = reader.int64();
                        break;
                    }
                case 2: {
                        message.ID = reader.int64();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return LeaseGrantRequest;
    })();

    etcdserverpb.LeaseGrantResponse = (function() {

        /**
         * Properties of a LeaseGrantResponse.
         * @memberof etcdserverpb
         * @interface ILeaseGrantResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] LeaseGrantResponse header
         * @property {number|Long|null} [ID] LeaseGrantResponse ID
         * @property {number|Long|null} [TTL] LeaseGrantResponse TTL
         * @property {string|null} [error] LeaseGrantResponse error
         */

        /**
         * Constructs a new LeaseGrantResponse.
         * @memberof etcdserverpb
         * @classdesc Represents a LeaseGrantResponse.
         * @implements ILeaseGrantResponse
         * @constructor
         * @param {etcdserverpb.ILeaseGrantResponse=} [properties] Properties to set
         */
        function LeaseGrantResponse(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * LeaseGrantResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.LeaseGrantResponse
         * @instance
         */
        LeaseGrantResponse.prototype.header = null;

        /**
         * LeaseGrantResponse ID.
         * @member {number|Long} ID
         * @memberof etcdserverpb.LeaseGrantResponse
         * @instance
         */
        LeaseGrantResponse.prototype.ID = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * LeaseGrantResponse TTL.
         * @member {number|Long} TTL
         * @memberof etcdserverpb.LeaseGrantResponse
         * @instance
         */
        LeaseGrantResponse.prototype.TTL = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * LeaseGrantResponse error.
         * @member {string} error
         * @memberof etcdserverpb.LeaseGrantResponse
         * @instance
         */
        LeaseGrantResponse.prototype.error = "";

        /**
         * Encodes the specified LeaseGrantResponse message. Does not implicitly {@link etcdserverpb.LeaseGrantResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.LeaseGrantResponse
         * @static
         * @param {etcdserverpb.ILeaseGrantResponse} message LeaseGrantResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        LeaseGrantResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.ID != null && Object.hasOwnProperty.call(message, "ID"))
                writer.uint32(/* id 2, wireType 0 =*/16).int64(message.ID);
            if (message.TTL != null && Object.hasOwnProperty.call(message, "TTL"))
                writer.uint32(/* id 3, wireType 0 =*/24).int64(message.TTL);
            if (message.error != null && Object.hasOwnProperty.call(message, "error"))
                writer.uint32(/* id 4, wireType 2 =*/34).string(message.error);
            return writer;
        };

        /**
         * Decodes a LeaseGrantResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.LeaseGrantResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.LeaseGrantResponse} LeaseGrantResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        LeaseGrantResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.LeaseGrantResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.ID = reader.int64();
                        break;
                    }
                case 3: {
                        message.TTL = reader.int64();
                        break;
                    }
                case 4: {
                        message.error = reader.string();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return LeaseGrantResponse;
    })();

    etcdserverpb.LeaseRevokeRequest = (function() {

        /**
         * Properties of a LeaseRevokeRequest.
         * @memberof etcdserverpb
         * @interface ILeaseRevokeRequest
         * @property {number|Long|null} [ID] LeaseRevokeRequest ID
         */

        /**
         * Constructs a new LeaseRevokeRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a LeaseRevokeRequest.
         * @implements ILeaseRevokeRequest
         * @constructor
         * @param {etcdserverpb.ILeaseRevokeRequest=} [properties] Properties to set
         */
        function LeaseRevokeRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * LeaseRevokeRequest ID.
         * @member {number|Long} ID
         * @memberof etcdserverpb.LeaseRevokeRequest
         * @instance
         */
        LeaseRevokeRequest.prototype.ID = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Encodes the specified LeaseRevokeRequest message. Does not implicitly {@link etcdserverpb.LeaseRevokeRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.LeaseRevokeRequest
         * @static
         * @param {etcdserverpb.ILeaseRevokeRequest} message LeaseRevokeRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        LeaseRevokeRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.ID != null && Object.hasOwnProperty.call(message, "ID"))
                writer.uint32(/* id 1, wireType 0 =*/8).int64(message.ID);
            return writer;
        };

        /**
         * Decodes a LeaseRevokeRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.LeaseRevokeRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.LeaseRevokeRequest} LeaseRevokeRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        LeaseRevokeRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.LeaseRevokeRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.ID = reader.int64();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return LeaseRevokeRequest;
    })();

    etcdserverpb.LeaseRevokeResponse = (function() {

        /**
         * Properties of a LeaseRevokeResponse.
         * @memberof etcdserverpb
         * @interface ILeaseRevokeResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] LeaseRevokeResponse header
         */

        /**
         * Constructs a new LeaseRevokeResponse.
         * @memberof etcdserverpb
         * @classdesc Represents a LeaseRevokeResponse.
         * @implements ILeaseRevokeResponse
         * @constructor
         * @param {etcdserverpb.ILeaseRevokeResponse=} [properties] Properties to set
         */
        function LeaseRevokeResponse(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * LeaseRevokeResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.LeaseRevokeResponse
         * @instance
         */
        LeaseRevokeResponse.prototype.header = null;

        /**
         * Encodes the specified LeaseRevokeResponse message. Does not implicitly {@link etcdserverpb.LeaseRevokeResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.LeaseRevokeResponse
         * @static
         * @param {etcdserverpb.ILeaseRevokeResponse} message LeaseRevokeResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        LeaseRevokeResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes a LeaseRevokeResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.LeaseRevokeResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.LeaseRevokeResponse} LeaseRevokeResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        LeaseRevokeResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.LeaseRevokeResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return LeaseRevokeResponse;
    })();

    etcdserverpb.LeaseKeepAliveRequest = (function() {

        /**
         * Properties of a LeaseKeepAliveRequest.
         * @memberof etcdserverpb
         * @interface ILeaseKeepAliveRequest
         * @property {number|Long|null} [ID] LeaseKeepAliveRequest ID
         */

        /**
         * Constructs a new LeaseKeepAliveRequest.
         * @memberof etcdserverpb
         * @classdesc Represents a LeaseKeepAliveRequest.
         * @implements ILeaseKeepAliveRequest
         * @constructor
         * @param {etcdserverpb.ILeaseKeepAliveRequest=} [properties] Properties to set
         */
        function LeaseKeepAliveRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * LeaseKeepAliveRequest ID.
         * @member {number|Long} ID
         * @memberof etcdserverpb.LeaseKeepAliveRequest
         * @instance
         */
        LeaseKeepAliveRequest.prototype.ID = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Encodes the specified LeaseKeepAliveRequest message. Does not implicitly {@link etcdserverpb.LeaseKeepAliveRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.LeaseKeepAliveRequest
         * @static
         * @param {etcdserverpb.ILeaseKeepAliveRequest} message LeaseKeepAliveRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        LeaseKeepAliveRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.ID != null && Object.hasOwnProperty.call(message, "ID"))
                writer.uint32(/* id 1, wireType 0 =*/8).int64(message.ID);
            return writer;
        };

        /**
         * Decodes a LeaseKeepAliveRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.LeaseKeepAliveRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.LeaseKeepAliveRequest} LeaseKeepAliveRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        LeaseKeepAliveRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.LeaseKeepAliveRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.ID = reader.int64();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return LeaseKeepAliveRequest;
    })();

    etcdserverpb.LeaseKeepAliveResponse = (function() {

        /**
         * Properties of a LeaseKeepAliveResponse.
         * @memberof etcdserverpb
         * @interface ILeaseKeepAliveResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] LeaseKeepAliveResponse header
         * @property {number|Long|null} [ID] LeaseKeepAliveResponse ID
         * @property {number|Long|null} [TTL] LeaseKeepAliveResponse TTL
         */

        /**
         * Constructs a new LeaseKeepAliveResponse.
         * @memberof etcdserverpb
         * @classdesc Represents a LeaseKeepAliveResponse.
         * @implements ILeaseKeepAliveResponse
         * @constructor
         * @param {etcdserverpb.ILeaseKeepAliveResponse=} [properties] Properties to set
         */
        function LeaseKeepAliveResponse(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * LeaseKeepAliveResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.LeaseKeepAliveResponse
         * @instance
         */
        LeaseKeepAliveResponse.prototype.header = null;

        /**
         * LeaseKeepAliveResponse ID.
         * @member {number|Long} ID
         * @memberof etcdserverpb.LeaseKeepAliveResponse
         * @instance
         */
        LeaseKeepAliveResponse.prototype.ID = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * LeaseKeepAliveResponse TTL.
         * @member {number|Long} TTL
         * @memberof etcdserverpb.LeaseKeepAliveResponse
         * @instance
         */
        LeaseKeepAliveResponse.prototype.TTL = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Encodes the specified LeaseKeepAliveResponse message. Does not implicitly {@link etcdserverpb.LeaseKeepAliveResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.LeaseKeepAliveResponse
         * @static
         * @param {etcdserverpb.ILeaseKeepAliveResponse} message LeaseKeepAliveResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        LeaseKeepAliveResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.ID != null && Object.hasOwnProperty.call(message, "ID"))
                writer.uint32(/* id 2, wireType 0 =*/16).int64(message.ID);
            if (message.TTL != null && Object.hasOwnProperty.call(message, "TTL"))
                writer.uint32(/* id 3, wireType 0 =*/24).int64(message.TTL);
            return writer;
        };

        /**
         * Decodes a LeaseKeepAliveResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.LeaseKeepAliveResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.LeaseKeepAliveResponse} LeaseKeepAliveResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        LeaseKeepAliveResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.LeaseKeepAliveResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.ID = reader.int64();
                        break;
                    }
                case 3: {
                        message.TTL = reader.int64();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return LeaseKeepAliveResponse;
    })();

    etcdserverpb.AuthenticateRequest = (function() {

        /**
         * Properties of an AuthenticateRequest.
         * @memberof etcdserverpb
         * @interface IAuthenticateRequest
         * @property {string|null} [name] AuthenticateRequest name
         * @property {string|null} [password] AuthenticateRequest password
         */

        /**
         * Constructs a new AuthenticateRequest.
         * @memberof etcdserverpb
         * @classdesc Represents an AuthenticateRequest.
         * @implements IAuthenticateRequest
         * @constructor
         * @param {etcdserverpb.IAuthenticateRequest=} [properties] Properties to set
         */
        function AuthenticateRequest(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * AuthenticateRequest name.
         * @member {string} name
         * @memberof etcdserverpb.AuthenticateRequest
         * @instance
         */
        AuthenticateRequest.prototype.name = "";

        /**
         * AuthenticateRequest password.
         * @member {string} password
         * @memberof etcdserverpb.AuthenticateRequest
         * @instance
         */
        AuthenticateRequest.prototype.password = "";

        /**
         * Encodes the specified AuthenticateRequest message. Does not implicitly {@link etcdserverpb.AuthenticateRequest.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.AuthenticateRequest
         * @static
         * @param {etcdserverpb.IAuthenticateRequest} message AuthenticateRequest message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        AuthenticateRequest.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.name != null && Object.hasOwnProperty.call(message, "name"))
                writer.uint32(/* id 1, wireType 2 =*/10).string(message.name);
            if (message.password != null && Object.hasOwnProperty.call(message, "password"))
                writer.uint32(/* id 2, wireType 2 =*/18).string(message.password);
            return writer;
        };

        /**
         * Decodes an AuthenticateRequest message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.AuthenticateRequest
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.AuthenticateRequest} AuthenticateRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        AuthenticateRequest.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.AuthenticateRequest();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.name = reader.string();
                        break;
                    }
                case 2: {
                        message.password = reader.string();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return AuthenticateRequest;
    })();

    etcdserverpb.AuthenticateResponse = (function() {

        /**
         * Properties of an AuthenticateResponse.
         * @memberof etcdserverpb
         * @interface IAuthenticateResponse
         * @property {etcdserverpb.IResponseHeader|null} [header] AuthenticateResponse header
         * @property {string|null} [token] AuthenticateResponse token
         */

        /**
         * Constructs a new AuthenticateResponse.
         * @memberof etcdserverpb
         * @classdesc Represents an AuthenticateResponse.
         * @implements IAuthenticateResponse
         * @constructor
         * @param {etcdserverpb.IAuthenticateResponse=} [properties] Properties to set
         */
        function AuthenticateResponse(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * AuthenticateResponse header.
         * @member {etcdserverpb.IResponseHeader|null|undefined} header
         * @memberof etcdserverpb.AuthenticateResponse
         * @instance
         */
        AuthenticateResponse.prototype.header = null;

        /**
         * AuthenticateResponse token.
         * @member {string} token
         * @memberof etcdserverpb.AuthenticateResponse
         * @instance
         */
        AuthenticateResponse.prototype.token = "";

        /**
         * Encodes the specified AuthenticateResponse message. Does not implicitly {@link etcdserverpb.AuthenticateResponse.verify|verify} messages.
         * @function encode
         * @memberof etcdserverpb.AuthenticateResponse
         * @static
         * @param {etcdserverpb.IAuthenticateResponse} message AuthenticateResponse message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        AuthenticateResponse.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.header != null && Object.hasOwnProperty.call(message, "header"))
                $root.etcdserverpb.ResponseHeader.encode(message.header, writer.uint32(/* id 1, wireType 2 =*/10).fork(), q + 1).ldelim();
            if (message.token != null && Object.hasOwnProperty.call(message, "token"))
                writer.uint32(/* id 2, wireType 2 =*/18).string(message.token);
            return writer;
        };

        /**
         * Decodes an AuthenticateResponse message from the specified reader or buffer.
         * @function decode
         * @memberof etcdserverpb.AuthenticateResponse
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {etcdserverpb.AuthenticateResponse} AuthenticateResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        AuthenticateResponse.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.etcdserverpb.AuthenticateResponse();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.header = $root.etcdserverpb.ResponseHeader.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 2: {
                        message.token = reader.string();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return AuthenticateResponse;
    })();

    return etcdserverpb;
})();

$root.mvccpb = (function() {

    /**
     * Namespace mvccpb.
     * @exports mvccpb
     * @namespace
     */
    var mvccpb = {};

    mvccpb.KeyValue = (function() {

        /**
         * Properties of a KeyValue.
         * @memberof mvccpb
         * @interface IKeyValue
         * @property {Uint8Array|null} [key] KeyValue key
         * @property {number|Long|null} [create_revision] KeyValue create_revision
         * @property {number|Long|null} [mod_revision] KeyValue mod_revision
         * @property {number|Long|null} [version] KeyValue version
         * @property {Uint8Array|null} [value] KeyValue value
         * @property {number|Long|null} [lease] KeyValue lease
         */

        /**
         * Constructs a new KeyValue.
         * @memberof mvccpb
         * @classdesc Represents a KeyValue.
         * @implements IKeyValue
         * @constructor
         * @param {mvccpb.IKeyValue=} [properties] Properties to set
         */
        function KeyValue(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * KeyValue key.
         * @member {Uint8Array} key
         * @memberof mvccpb.KeyValue
         * @instance
         */
        KeyValue.prototype.key = $util.newBuffer([]);

        /**
         * KeyValue create_revision.
         * @member {number|Long} create_revision
         * @memberof mvccpb.KeyValue
         * @instance
         */
        KeyValue.prototype.create_revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * KeyValue mod_revision.
         * @member {number|Long} mod_revision
         * @memberof mvccpb.KeyValue
         * @instance
         */
        KeyValue.prototype.mod_revision = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * KeyValue version.
         * @member {number|Long} version
         * @memberof mvccpb.KeyValue
         * @instance
         */
        KeyValue.prototype.version = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * KeyValue value.
         * @member {Uint8Array} value
         * @memberof mvccpb.KeyValue
         * @instance
         */
        KeyValue.prototype.value = $util.newBuffer([]);

        /**
         * KeyValue lease.
         * @member {number|Long} lease
         * @memberof mvccpb.KeyValue
         * @instance
         */
        KeyValue.prototype.lease = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

        /**
         * Encodes the specified KeyValue message. Does not implicitly {@link mvccpb.KeyValue.verify|verify} messages.
         * @function encode
         * @memberof mvccpb.KeyValue
         * @static
         * @param {mvccpb.IKeyValue} message KeyValue message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        KeyValue.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.key != null && Object.hasOwnProperty.call(message, "key"))
                writer.uint32(/* id 1, wireType 2 =*/10).bytes(message.key);
            if (message.create_revision != null && Object.hasOwnProperty.call(message, "create_revision"))
                writer.uint32(/* id 2, wireType 0 =*/16).int64(message.create_revision);
            if (message.mod_revision != null && Object.hasOwnProperty.call(message, "mod_revision"))
                writer.uint32(/* id 3, wireType 0 =*/24).int64(message.mod_revision);
            if (message.version != null && Object.hasOwnProperty.call(message, "version"))
                writer.uint32(/* id 4, wireType 0 =*/32).int64(message.version);
            if (message.value != null && Object.hasOwnProperty.call(message, "value"))
                writer.uint32(/* id 5, wireType 2 =*/42).bytes(message.value);
            if (message.lease != null && Object.hasOwnProperty.call(message, "lease"))
                writer.uint32(/* id 6, wireType 0 =*/48).int64(message.lease);
            return writer;
        };

        /**
         * Decodes a KeyValue message from the specified reader or buffer.
         * @function decode
         * @memberof mvccpb.KeyValue
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {mvccpb.KeyValue} KeyValue
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        KeyValue.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.mvccpb.KeyValue();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.key = reader.bytes();
                        break;
                    }
                case 2: {
                        message.create_revision = reader.int64();
                        break;
                    }
                case 3: {
                        message.mod_revision = reader.int64();
                        break;
                    }
                case 4: {
                        message.version = reader.int64();
                        break;
                    }
                case 5: {
                        message.value = reader.bytes();
                        break;
                    }
                case 6: {
                        message.lease = reader.int64();
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        return KeyValue;
    })();

    mvccpb.Event = (function() {

        /**
         * Properties of an Event.
         * @memberof mvccpb
         * @interface IEvent
         * @property {mvccpb.Event.EventType|null} [type] Event type
         * @property {mvccpb.IKeyValue|null} [kv] Event kv
         * @property {mvccpb.IKeyValue|null} [prev_kv] Event prev_kv
         */

        /**
         * Constructs a new Event.
         * @memberof mvccpb
         * @classdesc Represents an Event.
         * @implements IEvent
         * @constructor
         * @param {mvccpb.IEvent=} [properties] Properties to set
         */
        function Event(properties) {
            if (properties)
                for (var keys = Object.keys(properties), i = 0; i < keys.length; ++i)
                    if (properties[keys[i]] != null && keys[i] !== "__proto__")
                        this[keys[i]] = properties[keys[i]];
        }

        /**
         * Event type.
         * @member {mvccpb.Event.EventType} type
         * @memberof mvccpb.Event
         * @instance
         */
        Event.prototype.type = 0;

        /**
         * Event kv.
         * @member {mvccpb.IKeyValue|null|undefined} kv
         * @memberof mvccpb.Event
         * @instance
         */
        Event.prototype.kv = null;

        /**
         * Event prev_kv.
         * @member {mvccpb.IKeyValue|null|undefined} prev_kv
         * @memberof mvccpb.Event
         * @instance
         */
        Event.prototype.prev_kv = null;

        /**
         * Encodes the specified Event message. Does not implicitly {@link mvccpb.Event.verify|verify} messages.
         * @function encode
         * @memberof mvccpb.Event
         * @static
         * @param {mvccpb.IEvent} message Event message or plain object to encode
         * @param {$protobuf.Writer} [writer] Writer to encode to
         * @returns {$protobuf.Writer} Writer
         */
        Event.encode = function encode(message, writer, q) {
            if (!writer)
                writer = $Writer.create();
            if (q === undefined)
                q = 0;
            if (q > $util.recursionLimit)
                throw Error("max depth exceeded");
            if (message.type != null && Object.hasOwnProperty.call(message, "type"))
                writer.uint32(/* id 1, wireType 0 =*/8).int32(message.type);
            if (message.kv != null && Object.hasOwnProperty.call(message, "kv"))
                $root.mvccpb.KeyValue.encode(message.kv, writer.uint32(/* id 2, wireType 2 =*/18).fork(), q + 1).ldelim();
            if (message.prev_kv != null && Object.hasOwnProperty.call(message, "prev_kv"))
                $root.mvccpb.KeyValue.encode(message.prev_kv, writer.uint32(/* id 3, wireType 2 =*/26).fork(), q + 1).ldelim();
            return writer;
        };

        /**
         * Decodes an Event message from the specified reader or buffer.
         * @function decode
         * @memberof mvccpb.Event
         * @static
         * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
         * @param {number} [length] Message length if known beforehand
         * @returns {mvccpb.Event} Event
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        Event.decode = function decode(reader, length, error, long) {
            if (!(reader instanceof $Reader))
                reader = $Reader.create(reader);
            if (long === undefined)
                long = 0;
            if (long > $Reader.recursionLimit)
                throw Error("maximum nesting depth exceeded");
            var end, message;
            if (length === undefined)
                end = reader.len;
            else {
                end = reader.pos + length;
                if (end > reader.len)
                    throw RangeError("index out of range");
                length = reader.len;
                reader.len = end;
            }
            message = new $root.mvccpb.Event();
            while (reader.pos < end) {
                var tag = reader.uint32();
                if (tag === error)
                    break;
                switch (tag >>> 3) {
                case 1: {
                        message.type = reader.int32();
                        break;
                    }
                case 2: {
                        message.kv = $root.mvccpb.KeyValue.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                case 3: {
                        message.prev_kv = $root.mvccpb.KeyValue.decode(reader, reader.uint32(), undefined, long + 1);
                        break;
                    }
                default:
                    reader.skipType(tag & 7, long);
                    break;
                }
            }
            if (length !== undefined) {
                if (reader.pos !== end)
                    throw RangeError("index out of range");
                reader.len = length;
            }
            return message;
        };

        /**
         * EventType enum.
         * @name mvccpb.Event.EventType
         * @enum {number}
         * @property {number} PUT=0 PUT value
         * @property {number} DELETE=1 DELETE value
         */
        Event.EventType = (function() {
            var valuesById = {}, values = Object.create(valuesById);
            values[valuesById[0] = "PUT"] = 0;
            values[valuesById[1] = "DELETE"] = 1;
            return values;
        })();

        return Event;
    })();

    return mvccpb;
})();

module.exports = $root;
