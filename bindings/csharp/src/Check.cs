using System;
using System.Diagnostics;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;

namespace CudnnFe
{
    /// <summary>Turns a C status into an exception carrying the thread's last error message.</summary>
    internal static class Check
    {
        internal static void Ok(fe_status status)
        {
            if (status != fe_status.FE_OK)
                throw Failure((Status)status, NativeApi.fe_last_error_message());
        }

        private static readonly Regex NullArgument = new Regex(@"^argument '(\w+)' is NULL$");

        /// <summary>The exception of a failed call: the library's "fe_function: cause" becomes
        /// "Method: cause" with the C# method first (the C function stays in
        /// <see cref="CudnnFeException.Function"/>) and the C functions the cause advises to call
        /// named as C# methods. A NULL argument of the call is an ArgumentNullException.</summary>
        internal static Exception Failure(Status status, string message)
        {
            int colon = message.IndexOf(": ", StringComparison.Ordinal);
            if (!message.StartsWith("fe_", StringComparison.Ordinal) || colon < 0 || message.Substring(0, colon).Contains(" "))
                return StatusExceptions.Of(status, "", "", message);
            string function = message.Substring(0, colon);
            string method = ApiNames.Method(function);
            string reason = message.Substring(colon + 2);
            Match nullArgument = NullArgument.Match(reason);
            if (status == Status.NullPointer && nullArgument.Success)
                return NullArgumentException(method, Camel(nullArgument.Groups[1].Value));
            return StatusExceptions.Of(status, function, method, ApiNames.Translate(reason));
        }

        /// <summary>The ObjectDisposedException of a use after Dispose: "Graph.Validate: the Graph is
        /// disposed", the method being the library's outermost frame on the stack (the one the
        /// caller called).</summary>
        internal static ObjectDisposedException Closed(string what)
        {
            // The frames of this assembly up to the caller's (a property's accessor named as the property).
            MethodBase called = (new StackTrace().GetFrames() ?? new StackFrame[0]).Select(f => f.GetMethod())
                .TakeWhile(m => m != null && m.DeclaringType != null && m.DeclaringType.Assembly == typeof(Check).Assembly)
                .LastOrDefault(m => !m.Name.Contains("<"));
            string method = called == null ? "CudnnFe" : called.DeclaringType.Name + "." + Regex.Replace(called.Name, "^[gs]et_", "");
            // ObjectName stays null: it would add a second line to Message.
            return new ObjectDisposedException(null, method + ": the " + what + " is disposed");
        }

        internal static CudnnFeException Invalid(string message)
        {
            return new InvalidArgumentException(message);
        }

        /// <summary>The ArgumentNullException of a null argument: ParamName the parameter, the
        /// message "Method: parameter is null".</summary>
        internal static ArgumentNullException NullArgumentException(string method, string parameter)
        {
            return new ArgumentNullException(parameter, method + ": " + parameter + " is null");
        }

        /// <summary>value, or an ArgumentNullException naming the method and the parameter.</summary>
        internal static T NotNull<T>(T value, string method, string parameter) where T : class
        {
            if (value == null) throw NullArgumentException(method, parameter);
            return value;
        }

        private static string Camel(string snake)
        {
            var parts = snake.Split('_');
            var text = new System.Text.StringBuilder(parts[0]);
            for (int i = 1; i < parts.Length; ++i)
                if (parts[i].Length > 0) text.Append(char.ToUpperInvariant(parts[i][0])).Append(parts[i].Substring(1));
            return text.ToString();
        }
    }
}
