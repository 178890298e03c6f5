// An attach's snapshots are the one heap snapshot type (`HeapSnapshot`, with its objects, paths
// and holders): code that imports ProcessAttach gets it too.
@_exported import HeapGraph
