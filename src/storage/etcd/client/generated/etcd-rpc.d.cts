import * as $protobuf from "protobufjs";
import Long = require("long");
/** Namespace etcdserverpb. */
export namespace etcdserverpb {

    /** Properties of a ResponseHeader. */
    interface IResponseHeader {

        /** ResponseHeader cluster_id */
        cluster_id?: (number|Long|null);

        /** ResponseHeader member_id */
        member_id?: (number|Long|null);

        /** ResponseHeader revision */
        revision?: (number|Long|null);

        /** ResponseHeader raft_term */
        raft_term?: (number|Long|null);
    }

    /** Represents a ResponseHeader. */
    class ResponseHeader implements IResponseHeader {

        /**
         * Constructs a new ResponseHeader.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IResponseHeader);

        /** ResponseHeader cluster_id. */
        public cluster_id: (number|Long);

        /** ResponseHeader member_id. */
        public member_id: (number|Long);

        /** ResponseHeader revision. */
        public revision: (number|Long);

        /** ResponseHeader raft_term. */
        public raft_term: (number|Long);

        /**
         * Encodes the specified ResponseHeader message. Does not implicitly {@link etcdserverpb.ResponseHeader.verify|verify} messages.
         * @param message ResponseHeader message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IResponseHeader, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a ResponseHeader message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns ResponseHeader
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.ResponseHeader;
    }

    /** Properties of a RangeRequest. */
    interface IRangeRequest {

        /** RangeRequest key */
        key?: (Uint8Array|null);

        /** RangeRequest range_end */
        range_end?: (Uint8Array|null);

        /** RangeRequest limit */
        limit?: (number|Long|null);

        /** RangeRequest revision */
        revision?: (number|Long|null);

        /** RangeRequest sort_order */
        sort_order?: (etcdserverpb.RangeRequest.SortOrder|null);

        /** RangeRequest sort_target */
        sort_target?: (etcdserverpb.RangeRequest.SortTarget|null);

        /** RangeRequest serializable */
        serializable?: (boolean|null);

        /** RangeRequest keys_only */
        keys_only?: (boolean|null);

        /** RangeRequest count_only */
        count_only?: (boolean|null);

        /** RangeRequest min_mod_revision */
        min_mod_revision?: (number|Long|null);

        /** RangeRequest max_mod_revision */
        max_mod_revision?: (number|Long|null);

        /** RangeRequest min_create_revision */
        min_create_revision?: (number|Long|null);

        /** RangeRequest max_create_revision */
        max_create_revision?: (number|Long|null);
    }

    /** Represents a RangeRequest. */
    class RangeRequest implements IRangeRequest {

        /**
         * Constructs a new RangeRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IRangeRequest);

        /** RangeRequest key. */
        public key: Uint8Array;

        /** RangeRequest range_end. */
        public range_end: Uint8Array;

        /** RangeRequest limit. */
        public limit: (number|Long);

        /** RangeRequest revision. */
        public revision: (number|Long);

        /** RangeRequest sort_order. */
        public sort_order: etcdserverpb.RangeRequest.SortOrder;

        /** RangeRequest sort_target. */
        public sort_target: etcdserverpb.RangeRequest.SortTarget;

        /** RangeRequest serializable. */
        public serializable: boolean;

        /** RangeRequest keys_only. */
        public keys_only: boolean;

        /** RangeRequest count_only. */
        public count_only: boolean;

        /** RangeRequest min_mod_revision. */
        public min_mod_revision: (number|Long);

        /** RangeRequest max_mod_revision. */
        public max_mod_revision: (number|Long);

        /** RangeRequest min_create_revision. */
        public min_create_revision: (number|Long);

        /** RangeRequest max_create_revision. */
        public max_create_revision: (number|Long);

        /**
         * Encodes the specified RangeRequest message. Does not implicitly {@link etcdserverpb.RangeRequest.verify|verify} messages.
         * @param message RangeRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IRangeRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a RangeRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns RangeRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.RangeRequest;
    }

    namespace RangeRequest {

        /** SortOrder enum. */
        enum SortOrder {
            NONE = 0,
            ASCEND = 1,
            DESCEND = 2
        }

        /** SortTarget enum. */
        enum SortTarget {
            KEY = 0,
            VERSION = 1,
            CREATE = 2,
            MOD = 3,
            VALUE = 4
        }
    }

    /** Properties of a RangeResponse. */
    interface IRangeResponse {

        /** RangeResponse header */
        header?: (etcdserverpb.IResponseHeader|null);

        /** RangeResponse kvs */
        kvs?: (mvccpb.IKeyValue[]|null);

        /** RangeResponse more */
        more?: (boolean|null);

        /** RangeResponse count */
        count?: (number|Long|null);
    }

    /** Represents a RangeResponse. */
    class RangeResponse implements IRangeResponse {

        /**
         * Constructs a new RangeResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IRangeResponse);

        /** RangeResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /** RangeResponse kvs. */
        public kvs: mvccpb.IKeyValue[];

        /** RangeResponse more. */
        public more: boolean;

        /** RangeResponse count. */
        public count: (number|Long);

        /**
         * Encodes the specified RangeResponse message. Does not implicitly {@link etcdserverpb.RangeResponse.verify|verify} messages.
         * @param message RangeResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IRangeResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a RangeResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns RangeResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.RangeResponse;
    }

    /** Properties of a PutRequest. */
    interface IPutRequest {

        /** PutRequest key */
        key?: (Uint8Array|null);

        /** PutRequest value */
        value?: (Uint8Array|null);

        /** PutRequest lease */
        lease?: (number|Long|null);

        /** PutRequest prev_kv */
        prev_kv?: (boolean|null);

        /** PutRequest ignore_value */
        ignore_value?: (boolean|null);

        /** PutRequest ignore_lease */
        ignore_lease?: (boolean|null);
    }

    /** Represents a PutRequest. */
    class PutRequest implements IPutRequest {

        /**
         * Constructs a new PutRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IPutRequest);

        /** PutRequest key. */
        public key: Uint8Array;

        /** PutRequest value. */
        public value: Uint8Array;

        /** PutRequest lease. */
        public lease: (number|Long);

        /** PutRequest prev_kv. */
        public prev_kv: boolean;

        /** PutRequest ignore_value. */
        public ignore_value: boolean;

        /** PutRequest ignore_lease. */
        public ignore_lease: boolean;

        /**
         * Encodes the specified PutRequest message. Does not implicitly {@link etcdserverpb.PutRequest.verify|verify} messages.
         * @param message PutRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IPutRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a PutRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns PutRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.PutRequest;
    }

    /** Properties of a PutResponse. */
    interface IPutResponse {

        /** PutResponse header */
        header?: (etcdserverpb.IResponseHeader|null);

        /** PutResponse prev_kv */
        prev_kv?: (mvccpb.IKeyValue|null);
    }

    /** Represents a PutResponse. */
    class PutResponse implements IPutResponse {

        /**
         * Constructs a new PutResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IPutResponse);

        /** PutResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /** PutResponse prev_kv. */
        public prev_kv?: (mvccpb.IKeyValue|null);

        /**
         * Encodes the specified PutResponse message. Does not implicitly {@link etcdserverpb.PutResponse.verify|verify} messages.
         * @param message PutResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IPutResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a PutResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns PutResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.PutResponse;
    }

    /** Properties of a DeleteRangeRequest. */
    interface IDeleteRangeRequest {

        /** DeleteRangeRequest key */
        key?: (Uint8Array|null);

        /** DeleteRangeRequest range_end */
        range_end?: (Uint8Array|null);

        /** DeleteRangeRequest prev_kv */
        prev_kv?: (boolean|null);
    }

    /** Represents a DeleteRangeRequest. */
    class DeleteRangeRequest implements IDeleteRangeRequest {

        /**
         * Constructs a new DeleteRangeRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IDeleteRangeRequest);

        /** DeleteRangeRequest key. */
        public key: Uint8Array;

        /** DeleteRangeRequest range_end. */
        public range_end: Uint8Array;

        /** DeleteRangeRequest prev_kv. */
        public prev_kv: boolean;

        /**
         * Encodes the specified DeleteRangeRequest message. Does not implicitly {@link etcdserverpb.DeleteRangeRequest.verify|verify} messages.
         * @param message DeleteRangeRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IDeleteRangeRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a DeleteRangeRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns DeleteRangeRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.DeleteRangeRequest;
    }

    /** Properties of a DeleteRangeResponse. */
    interface IDeleteRangeResponse {

        /** DeleteRangeResponse header */
        header?: (etcdserverpb.IResponseHeader|null);

        /** DeleteRangeResponse deleted */
        deleted?: (number|Long|null);

        /** DeleteRangeResponse prev_kvs */
        prev_kvs?: (mvccpb.IKeyValue[]|null);
    }

    /** Represents a DeleteRangeResponse. */
    class DeleteRangeResponse implements IDeleteRangeResponse {

        /**
         * Constructs a new DeleteRangeResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IDeleteRangeResponse);

        /** DeleteRangeResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /** DeleteRangeResponse deleted. */
        public deleted: (number|Long);

        /** DeleteRangeResponse prev_kvs. */
        public prev_kvs: mvccpb.IKeyValue[];

        /**
         * Encodes the specified DeleteRangeResponse message. Does not implicitly {@link etcdserverpb.DeleteRangeResponse.verify|verify} messages.
         * @param message DeleteRangeResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IDeleteRangeResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a DeleteRangeResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns DeleteRangeResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.DeleteRangeResponse;
    }

    /** Properties of a RequestOp. */
    interface IRequestOp {

        /** RequestOp request_range */
        request_range?: (etcdserverpb.IRangeRequest|null);

        /** RequestOp request_put */
        request_put?: (etcdserverpb.IPutRequest|null);

        /** RequestOp request_delete_range */
        request_delete_range?: (etcdserverpb.IDeleteRangeRequest|null);

        /** RequestOp request_txn */
        request_txn?: (etcdserverpb.ITxnRequest|null);
    }

    /** Represents a RequestOp. */
    class RequestOp implements IRequestOp {

        /**
         * Constructs a new RequestOp.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IRequestOp);

        /** RequestOp request_range. */
        public request_range?: (etcdserverpb.IRangeRequest|null);

        /** RequestOp request_put. */
        public request_put?: (etcdserverpb.IPutRequest|null);

        /** RequestOp request_delete_range. */
        public request_delete_range?: (etcdserverpb.IDeleteRangeRequest|null);

        /** RequestOp request_txn. */
        public request_txn?: (etcdserverpb.ITxnRequest|null);

        /** RequestOp request. */
        public request?: ("request_range"|"request_put"|"request_delete_range"|"request_txn");

        /**
         * Encodes the specified RequestOp message. Does not implicitly {@link etcdserverpb.RequestOp.verify|verify} messages.
         * @param message RequestOp message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IRequestOp, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a RequestOp message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns RequestOp
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.RequestOp;
    }

    /** Properties of a ResponseOp. */
    interface IResponseOp {

        /** ResponseOp response_range */
        response_range?: (etcdserverpb.IRangeResponse|null);

        /** ResponseOp response_put */
        response_put?: (etcdserverpb.IPutResponse|null);

        /** ResponseOp response_delete_range */
        response_delete_range?: (etcdserverpb.IDeleteRangeResponse|null);

        /** ResponseOp response_txn */
        response_txn?: (etcdserverpb.ITxnResponse|null);
    }

    /** Represents a ResponseOp. */
    class ResponseOp implements IResponseOp {

        /**
         * Constructs a new ResponseOp.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IResponseOp);

        /** ResponseOp response_range. */
        public response_range?: (etcdserverpb.IRangeResponse|null);

        /** ResponseOp response_put. */
        public response_put?: (etcdserverpb.IPutResponse|null);

        /** ResponseOp response_delete_range. */
        public response_delete_range?: (etcdserverpb.IDeleteRangeResponse|null);

        /** ResponseOp response_txn. */
        public response_txn?: (etcdserverpb.ITxnResponse|null);

        /** ResponseOp response. */
        public response?: ("response_range"|"response_put"|"response_delete_range"|"response_txn");

        /**
         * Encodes the specified ResponseOp message. Does not implicitly {@link etcdserverpb.ResponseOp.verify|verify} messages.
         * @param message ResponseOp message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IResponseOp, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a ResponseOp message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns ResponseOp
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.ResponseOp;
    }

    /** Properties of a Compare. */
    interface ICompare {

        /** Compare result */
        result?: (etcdserverpb.Compare.CompareResult|null);

        /** Compare target */
        target?: (etcdserverpb.Compare.CompareTarget|null);

        /** Compare key */
        key?: (Uint8Array|null);

        /** Compare version */
        version?: (number|Long|null);

        /** Compare create_revision */
        create_revision?: (number|Long|null);

        /** Compare mod_revision */
        mod_revision?: (number|Long|null);

        /** Compare value */
        value?: (Uint8Array|null);

        /** Compare lease */
        lease?: (number|Long|null);

        /** Compare range_end */
        range_end?: (Uint8Array|null);
    }

    /** Represents a Compare. */
    class Compare implements ICompare {

        /**
         * Constructs a new Compare.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ICompare);

        /** Compare result. */
        public result: etcdserverpb.Compare.CompareResult;

        /** Compare target. */
        public target: etcdserverpb.Compare.CompareTarget;

        /** Compare key. */
        public key: Uint8Array;

        /** Compare version. */
        public version?: (number|Long|null);

        /** Compare create_revision. */
        public create_revision?: (number|Long|null);

        /** Compare mod_revision. */
        public mod_revision?: (number|Long|null);

        /** Compare value. */
        public value?: (Uint8Array|null);

        /** Compare lease. */
        public lease?: (number|Long|null);

        /** Compare range_end. */
        public range_end: Uint8Array;

        /** Compare target_union. */
        public target_union?: ("version"|"create_revision"|"mod_revision"|"value"|"lease");

        /**
         * Encodes the specified Compare message. Does not implicitly {@link etcdserverpb.Compare.verify|verify} messages.
         * @param message Compare message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ICompare, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a Compare message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns Compare
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.Compare;
    }

    namespace Compare {

        /** CompareResult enum. */
        enum CompareResult {
            EQUAL = 0,
            GREATER = 1,
            LESS = 2,
            NOT_EQUAL = 3
        }

        /** CompareTarget enum. */
        enum CompareTarget {
            VERSION = 0,
            CREATE = 1,
            MOD = 2,
            VALUE = 3,
            LEASE = 4
        }
    }

    /** Properties of a TxnRequest. */
    interface ITxnRequest {

        /** TxnRequest compare */
        compare?: (etcdserverpb.ICompare[]|null);

        /** TxnRequest success */
        success?: (etcdserverpb.IRequestOp[]|null);

        /** TxnRequest failure */
        failure?: (etcdserverpb.IRequestOp[]|null);
    }

    /** Represents a TxnRequest. */
    class TxnRequest implements ITxnRequest {

        /**
         * Constructs a new TxnRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ITxnRequest);

        /** TxnRequest compare. */
        public compare: etcdserverpb.ICompare[];

        /** TxnRequest success. */
        public success: etcdserverpb.IRequestOp[];

        /** TxnRequest failure. */
        public failure: etcdserverpb.IRequestOp[];

        /**
         * Encodes the specified TxnRequest message. Does not implicitly {@link etcdserverpb.TxnRequest.verify|verify} messages.
         * @param message TxnRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ITxnRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a TxnRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns TxnRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.TxnRequest;
    }

    /** Properties of a TxnResponse. */
    interface ITxnResponse {

        /** TxnResponse header */
        header?: (etcdserverpb.IResponseHeader|null);

        /** TxnResponse succeeded */
        succeeded?: (boolean|null);

        /** TxnResponse responses */
        responses?: (etcdserverpb.IResponseOp[]|null);
    }

    /** Represents a TxnResponse. */
    class TxnResponse implements ITxnResponse {

        /**
         * Constructs a new TxnResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ITxnResponse);

        /** TxnResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /** TxnResponse succeeded. */
        public succeeded: boolean;

        /** TxnResponse responses. */
        public responses: etcdserverpb.IResponseOp[];

        /**
         * Encodes the specified TxnResponse message. Does not implicitly {@link etcdserverpb.TxnResponse.verify|verify} messages.
         * @param message TxnResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ITxnResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a TxnResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns TxnResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.TxnResponse;
    }

    /** Properties of a CompactionRequest. */
    interface ICompactionRequest {

        /** CompactionRequest revision */
        revision?: (number|Long|null);

        /** CompactionRequest physical */
        physical?: (boolean|null);
    }

    /** Represents a CompactionRequest. */
    class CompactionRequest implements ICompactionRequest {

        /**
         * Constructs a new CompactionRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ICompactionRequest);

        /** CompactionRequest revision. */
        public revision: (number|Long);

        /** CompactionRequest physical. */
        public physical: boolean;

        /**
         * Encodes the specified CompactionRequest message. Does not implicitly {@link etcdserverpb.CompactionRequest.verify|verify} messages.
         * @param message CompactionRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ICompactionRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a CompactionRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns CompactionRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.CompactionRequest;
    }

    /** Properties of a CompactionResponse. */
    interface ICompactionResponse {

        /** CompactionResponse header */
        header?: (etcdserverpb.IResponseHeader|null);
    }

    /** Represents a CompactionResponse. */
    class CompactionResponse implements ICompactionResponse {

        /**
         * Constructs a new CompactionResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ICompactionResponse);

        /** CompactionResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /**
         * Encodes the specified CompactionResponse message. Does not implicitly {@link etcdserverpb.CompactionResponse.verify|verify} messages.
         * @param message CompactionResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ICompactionResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a CompactionResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns CompactionResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.CompactionResponse;
    }

    /** Properties of a WatchRequest. */
    interface IWatchRequest {

        /** WatchRequest create_request */
        create_request?: (etcdserverpb.IWatchCreateRequest|null);

        /** WatchRequest cancel_request */
        cancel_request?: (etcdserverpb.IWatchCancelRequest|null);

        /** WatchRequest progress_request */
        progress_request?: (etcdserverpb.IWatchProgressRequest|null);
    }

    /** Represents a WatchRequest. */
    class WatchRequest implements IWatchRequest {

        /**
         * Constructs a new WatchRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IWatchRequest);

        /** WatchRequest create_request. */
        public create_request?: (etcdserverpb.IWatchCreateRequest|null);

        /** WatchRequest cancel_request. */
        public cancel_request?: (etcdserverpb.IWatchCancelRequest|null);

        /** WatchRequest progress_request. */
        public progress_request?: (etcdserverpb.IWatchProgressRequest|null);

        /** WatchRequest request_union. */
        public request_union?: ("create_request"|"cancel_request"|"progress_request");

        /**
         * Encodes the specified WatchRequest message. Does not implicitly {@link etcdserverpb.WatchRequest.verify|verify} messages.
         * @param message WatchRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IWatchRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a WatchRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns WatchRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.WatchRequest;
    }

    /** Properties of a WatchCreateRequest. */
    interface IWatchCreateRequest {

        /** WatchCreateRequest key */
        key?: (Uint8Array|null);

        /** WatchCreateRequest range_end */
        range_end?: (Uint8Array|null);

        /** WatchCreateRequest start_revision */
        start_revision?: (number|Long|null);

        /** WatchCreateRequest progress_notify */
        progress_notify?: (boolean|null);

        /** WatchCreateRequest filters */
        filters?: (etcdserverpb.WatchCreateRequest.FilterType[]|null);

        /** WatchCreateRequest prev_kv */
        prev_kv?: (boolean|null);

        /** WatchCreateRequest watch_id */
        watch_id?: (number|Long|null);

        /** WatchCreateRequest fragment */
        fragment?: (boolean|null);
    }

    /** Represents a WatchCreateRequest. */
    class WatchCreateRequest implements IWatchCreateRequest {

        /**
         * Constructs a new WatchCreateRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IWatchCreateRequest);

        /** WatchCreateRequest key. */
        public key: Uint8Array;

        /** WatchCreateRequest range_end. */
        public range_end: Uint8Array;

        /** WatchCreateRequest start_revision. */
        public start_revision: (number|Long);

        /** WatchCreateRequest progress_notify. */
        public progress_notify: boolean;

        /** WatchCreateRequest filters. */
        public filters: etcdserverpb.WatchCreateRequest.FilterType[];

        /** WatchCreateRequest prev_kv. */
        public prev_kv: boolean;

        /** WatchCreateRequest watch_id. */
        public watch_id: (number|Long);

        /** WatchCreateRequest fragment. */
        public fragment: boolean;

        /**
         * Encodes the specified WatchCreateRequest message. Does not implicitly {@link etcdserverpb.WatchCreateRequest.verify|verify} messages.
         * @param message WatchCreateRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IWatchCreateRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a WatchCreateRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns WatchCreateRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.WatchCreateRequest;
    }

    namespace WatchCreateRequest {

        /** FilterType enum. */
        enum FilterType {
            NOPUT = 0,
            NODELETE = 1
        }
    }

    /** Properties of a WatchCancelRequest. */
    interface IWatchCancelRequest {

        /** WatchCancelRequest watch_id */
        watch_id?: (number|Long|null);
    }

    /** Represents a WatchCancelRequest. */
    class WatchCancelRequest implements IWatchCancelRequest {

        /**
         * Constructs a new WatchCancelRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IWatchCancelRequest);

        /** WatchCancelRequest watch_id. */
        public watch_id: (number|Long);

        /**
         * Encodes the specified WatchCancelRequest message. Does not implicitly {@link etcdserverpb.WatchCancelRequest.verify|verify} messages.
         * @param message WatchCancelRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IWatchCancelRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a WatchCancelRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns WatchCancelRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.WatchCancelRequest;
    }

    /** Properties of a WatchProgressRequest. */
    interface IWatchProgressRequest {
    }

    /** Represents a WatchProgressRequest. */
    class WatchProgressRequest implements IWatchProgressRequest {

        /**
         * Constructs a new WatchProgressRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IWatchProgressRequest);

        /**
         * Encodes the specified WatchProgressRequest message. Does not implicitly {@link etcdserverpb.WatchProgressRequest.verify|verify} messages.
         * @param message WatchProgressRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IWatchProgressRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a WatchProgressRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns WatchProgressRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.WatchProgressRequest;
    }

    /** Properties of a WatchResponse. */
    interface IWatchResponse {

        /** WatchResponse header */
        header?: (etcdserverpb.IResponseHeader|null);

        /** WatchResponse watch_id */
        watch_id?: (number|Long|null);

        /** WatchResponse created */
        created?: (boolean|null);

        /** WatchResponse canceled */
        canceled?: (boolean|null);

        /** WatchResponse compact_revision */
        compact_revision?: (number|Long|null);

        /** WatchResponse cancel_reason */
        cancel_reason?: (string|null);

        /** WatchResponse fragment */
        fragment?: (boolean|null);

        /** WatchResponse events */
        events?: (mvccpb.IEvent[]|null);
    }

    /** Represents a WatchResponse. */
    class WatchResponse implements IWatchResponse {

        /**
         * Constructs a new WatchResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IWatchResponse);

        /** WatchResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /** WatchResponse watch_id. */
        public watch_id: (number|Long);

        /** WatchResponse created. */
        public created: boolean;

        /** WatchResponse canceled. */
        public canceled: boolean;

        /** WatchResponse compact_revision. */
        public compact_revision: (number|Long);

        /** WatchResponse cancel_reason. */
        public cancel_reason: string;

        /** WatchResponse fragment. */
        public fragment: boolean;

        /** WatchResponse events. */
        public events: mvccpb.IEvent[];

        /**
         * Encodes the specified WatchResponse message. Does not implicitly {@link etcdserverpb.WatchResponse.verify|verify} messages.
         * @param message WatchResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IWatchResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a WatchResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns WatchResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.WatchResponse;
    }

    /** Properties of a LeaseGrantRequest. */
    interface ILeaseGrantRequest {

        /** LeaseGrantRequest TTL */
        TTL?: (number|Long|null);

        /** LeaseGrantRequest ID */
        ID?: (number|Long|null);
    }

    /** Represents a LeaseGrantRequest. */
    class LeaseGrantRequest implements ILeaseGrantRequest {

        /**
         * Constructs a new LeaseGrantRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ILeaseGrantRequest);

        /** LeaseGrantRequest TTL. */
        public TTL: (number|Long);

        /** LeaseGrantRequest ID. */
        public ID: (number|Long);

        /**
         * Encodes the specified LeaseGrantRequest message. Does not implicitly {@link etcdserverpb.LeaseGrantRequest.verify|verify} messages.
         * @param message LeaseGrantRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ILeaseGrantRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a LeaseGrantRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns LeaseGrantRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.LeaseGrantRequest;
    }

    /** Properties of a LeaseGrantResponse. */
    interface ILeaseGrantResponse {

        /** LeaseGrantResponse header */
        header?: (etcdserverpb.IResponseHeader|null);

        /** LeaseGrantResponse ID */
        ID?: (number|Long|null);

        /** LeaseGrantResponse TTL */
        TTL?: (number|Long|null);

        /** LeaseGrantResponse error */
        error?: (string|null);
    }

    /** Represents a LeaseGrantResponse. */
    class LeaseGrantResponse implements ILeaseGrantResponse {

        /**
         * Constructs a new LeaseGrantResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ILeaseGrantResponse);

        /** LeaseGrantResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /** LeaseGrantResponse ID. */
        public ID: (number|Long);

        /** LeaseGrantResponse TTL. */
        public TTL: (number|Long);

        /** LeaseGrantResponse error. */
        public error: string;

        /**
         * Encodes the specified LeaseGrantResponse message. Does not implicitly {@link etcdserverpb.LeaseGrantResponse.verify|verify} messages.
         * @param message LeaseGrantResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ILeaseGrantResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a LeaseGrantResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns LeaseGrantResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.LeaseGrantResponse;
    }

    /** Properties of a LeaseRevokeRequest. */
    interface ILeaseRevokeRequest {

        /** LeaseRevokeRequest ID */
        ID?: (number|Long|null);
    }

    /** Represents a LeaseRevokeRequest. */
    class LeaseRevokeRequest implements ILeaseRevokeRequest {

        /**
         * Constructs a new LeaseRevokeRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ILeaseRevokeRequest);

        /** LeaseRevokeRequest ID. */
        public ID: (number|Long);

        /**
         * Encodes the specified LeaseRevokeRequest message. Does not implicitly {@link etcdserverpb.LeaseRevokeRequest.verify|verify} messages.
         * @param message LeaseRevokeRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ILeaseRevokeRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a LeaseRevokeRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns LeaseRevokeRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.LeaseRevokeRequest;
    }

    /** Properties of a LeaseRevokeResponse. */
    interface ILeaseRevokeResponse {

        /** LeaseRevokeResponse header */
        header?: (etcdserverpb.IResponseHeader|null);
    }

    /** Represents a LeaseRevokeResponse. */
    class LeaseRevokeResponse implements ILeaseRevokeResponse {

        /**
         * Constructs a new LeaseRevokeResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ILeaseRevokeResponse);

        /** LeaseRevokeResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /**
         * Encodes the specified LeaseRevokeResponse message. Does not implicitly {@link etcdserverpb.LeaseRevokeResponse.verify|verify} messages.
         * @param message LeaseRevokeResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ILeaseRevokeResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a LeaseRevokeResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns LeaseRevokeResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.LeaseRevokeResponse;
    }

    /** Properties of a LeaseKeepAliveRequest. */
    interface ILeaseKeepAliveRequest {

        /** LeaseKeepAliveRequest ID */
        ID?: (number|Long|null);
    }

    /** Represents a LeaseKeepAliveRequest. */
    class LeaseKeepAliveRequest implements ILeaseKeepAliveRequest {

        /**
         * Constructs a new LeaseKeepAliveRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ILeaseKeepAliveRequest);

        /** LeaseKeepAliveRequest ID. */
        public ID: (number|Long);

        /**
         * Encodes the specified LeaseKeepAliveRequest message. Does not implicitly {@link etcdserverpb.LeaseKeepAliveRequest.verify|verify} messages.
         * @param message LeaseKeepAliveRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ILeaseKeepAliveRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a LeaseKeepAliveRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns LeaseKeepAliveRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.LeaseKeepAliveRequest;
    }

    /** Properties of a LeaseKeepAliveResponse. */
    interface ILeaseKeepAliveResponse {

        /** LeaseKeepAliveResponse header */
        header?: (etcdserverpb.IResponseHeader|null);

        /** LeaseKeepAliveResponse ID */
        ID?: (number|Long|null);

        /** LeaseKeepAliveResponse TTL */
        TTL?: (number|Long|null);
    }

    /** Represents a LeaseKeepAliveResponse. */
    class LeaseKeepAliveResponse implements ILeaseKeepAliveResponse {

        /**
         * Constructs a new LeaseKeepAliveResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.ILeaseKeepAliveResponse);

        /** LeaseKeepAliveResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /** LeaseKeepAliveResponse ID. */
        public ID: (number|Long);

        /** LeaseKeepAliveResponse TTL. */
        public TTL: (number|Long);

        /**
         * Encodes the specified LeaseKeepAliveResponse message. Does not implicitly {@link etcdserverpb.LeaseKeepAliveResponse.verify|verify} messages.
         * @param message LeaseKeepAliveResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.ILeaseKeepAliveResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a LeaseKeepAliveResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns LeaseKeepAliveResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.LeaseKeepAliveResponse;
    }

    /** Properties of an AuthenticateRequest. */
    interface IAuthenticateRequest {

        /** AuthenticateRequest name */
        name?: (string|null);

        /** AuthenticateRequest password */
        password?: (string|null);
    }

    /** Represents an AuthenticateRequest. */
    class AuthenticateRequest implements IAuthenticateRequest {

        /**
         * Constructs a new AuthenticateRequest.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IAuthenticateRequest);

        /** AuthenticateRequest name. */
        public name: string;

        /** AuthenticateRequest password. */
        public password: string;

        /**
         * Encodes the specified AuthenticateRequest message. Does not implicitly {@link etcdserverpb.AuthenticateRequest.verify|verify} messages.
         * @param message AuthenticateRequest message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IAuthenticateRequest, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes an AuthenticateRequest message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns AuthenticateRequest
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.AuthenticateRequest;
    }

    /** Properties of an AuthenticateResponse. */
    interface IAuthenticateResponse {

        /** AuthenticateResponse header */
        header?: (etcdserverpb.IResponseHeader|null);

        /** AuthenticateResponse token */
        token?: (string|null);
    }

    /** Represents an AuthenticateResponse. */
    class AuthenticateResponse implements IAuthenticateResponse {

        /**
         * Constructs a new AuthenticateResponse.
         * @param [properties] Properties to set
         */
        constructor(properties?: etcdserverpb.IAuthenticateResponse);

        /** AuthenticateResponse header. */
        public header?: (etcdserverpb.IResponseHeader|null);

        /** AuthenticateResponse token. */
        public token: string;

        /**
         * Encodes the specified AuthenticateResponse message. Does not implicitly {@link etcdserverpb.AuthenticateResponse.verify|verify} messages.
         * @param message AuthenticateResponse message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: etcdserverpb.IAuthenticateResponse, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes an AuthenticateResponse message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns AuthenticateResponse
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): etcdserverpb.AuthenticateResponse;
    }
}

/** Namespace mvccpb. */
export namespace mvccpb {

    /** Properties of a KeyValue. */
    interface IKeyValue {

        /** KeyValue key */
        key?: (Uint8Array|null);

        /** KeyValue create_revision */
        create_revision?: (number|Long|null);

        /** KeyValue mod_revision */
        mod_revision?: (number|Long|null);

        /** KeyValue version */
        version?: (number|Long|null);

        /** KeyValue value */
        value?: (Uint8Array|null);

        /** KeyValue lease */
        lease?: (number|Long|null);
    }

    /** Represents a KeyValue. */
    class KeyValue implements IKeyValue {

        /**
         * Constructs a new KeyValue.
         * @param [properties] Properties to set
         */
        constructor(properties?: mvccpb.IKeyValue);

        /** KeyValue key. */
        public key: Uint8Array;

        /** KeyValue create_revision. */
        public create_revision: (number|Long);

        /** KeyValue mod_revision. */
        public mod_revision: (number|Long);

        /** KeyValue version. */
        public version: (number|Long);

        /** KeyValue value. */
        public value: Uint8Array;

        /** KeyValue lease. */
        public lease: (number|Long);

        /**
         * Encodes the specified KeyValue message. Does not implicitly {@link mvccpb.KeyValue.verify|verify} messages.
         * @param message KeyValue message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: mvccpb.IKeyValue, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes a KeyValue message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns KeyValue
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): mvccpb.KeyValue;
    }

    /** Properties of an Event. */
    interface IEvent {

        /** Event type */
        type?: (mvccpb.Event.EventType|null);

        /** Event kv */
        kv?: (mvccpb.IKeyValue|null);

        /** Event prev_kv */
        prev_kv?: (mvccpb.IKeyValue|null);
    }

    /** Represents an Event. */
    class Event implements IEvent {

        /**
         * Constructs a new Event.
         * @param [properties] Properties to set
         */
        constructor(properties?: mvccpb.IEvent);

        /** Event type. */
        public type: mvccpb.Event.EventType;

        /** Event kv. */
        public kv?: (mvccpb.IKeyValue|null);

        /** Event prev_kv. */
        public prev_kv?: (mvccpb.IKeyValue|null);

        /**
         * Encodes the specified Event message. Does not implicitly {@link mvccpb.Event.verify|verify} messages.
         * @param message Event message or plain object to encode
         * @param [writer] Writer to encode to
         * @returns Writer
         */
        public static encode(message: mvccpb.IEvent, writer?: $protobuf.Writer): $protobuf.Writer;

        /**
         * Decodes an Event message from the specified reader or buffer.
         * @param reader Reader or buffer to decode from
         * @param [length] Message length if known beforehand
         * @returns Event
         * @throws {Error} If the payload is not a reader or valid buffer
         * @throws {$protobuf.util.ProtocolError} If required fields are missing
         */
        public static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): mvccpb.Event;
    }

    namespace Event {

        /** EventType enum. */
        enum EventType {
            PUT = 0,
            DELETE = 1
        }
    }
}
