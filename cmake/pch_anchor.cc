// The source of tputrain_pch, a library that exists only to build the precompiled header the
// modules reuse (cmake/precompiled_headers.cmake).
