#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H

// libxml2's SAX2 interface, which the feed reader drives directly (no tree, no FoundationXML strings).
#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, whose headers clash with Foundation's own copy of ICU in the same module
// graph. Nothing here needs ICU: without the macro, encoding.h leaves out only the ICU converter fields of
// xmlCharEncodingHandler, a struct this package reaches through pointers only (never by value or by field).
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/dict.h>

#endif
