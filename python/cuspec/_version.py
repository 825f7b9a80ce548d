# The package's version, which must be the library's (configure.ac's AC_INIT):
# importing cuspec over a libcuspec of another version is an error.
__version__ = "0.2.0"
